package config

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tiergate/tiergate/internal/yamlerr"
)

// keyLines maps each key path of a YAML document ("clusters[0].path", "rules.missing-wait")
// to the 1-based line of the key or sequence item, so that errors name both. Aliases are not
// followed: a key's own line is the one to report, and the document is untrusted.
func keyLines(data []byte) map[string]int {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	out := map[string]int{}
	var walk func(prefix string, n *yaml.Node)
	walk = func(prefix string, n *yaml.Node) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i].Value
				if prefix != "" {
					k = prefix + "." + k
				}
				out[k] = n.Content[i].Line
				walk(k, n.Content[i+1])
			}
		case yaml.SequenceNode:
			for i, item := range n.Content {
				k := prefix + "[" + strconv.Itoa(i) + "]"
				out[k] = item.Line
				walk(k, item)
			}
		}
	}
	walk("", doc.Content[0])
	return out
}

// where returns "file:line" of a key path, or of its nearest parent that is written (a
// required key that is missing), or the file alone.
func (c *Config) where(key string) string {
	if line := c.line(key); line > 0 {
		return c.name + ":" + strconv.Itoa(line)
	}
	return c.name
}

// line is the 1-based line of a key path or of its nearest parent that is written; 0 when
// none is.
func (c *Config) line(key string) int {
	for key != "" {
		if line, ok := c.lines[key]; ok {
			return line
		}
		key = key[:max(strings.LastIndexAny(key, ".["), 0)]
	}
	return 0
}

// Error is a configuration that cannot be used. File is the name given to Parse, Line the
// 1-based line of the offending key (0: the file as a whole, as for a file refused for its
// size), Message what is wrong ("rules.missing-wai: unknown key"); More holds the further
// errors of the same decode, in file order. Error() reads "file:line: message", one line
// per error.
type Error struct {
	File    string
	Line    int
	Message string
	More    []*Error
	// key is the key path the error is about ("ignore[1].paths"); "" when unknown.
	key string
}

func (e *Error) Error() string {
	out := e.File + ": " + e.Message
	if e.Line > 0 {
		out = e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Message
	}
	for _, m := range e.More {
		out += "\n" + m.Error()
	}
	return out
}

// Errorf returns an *Error "file:line: key: message" for a key path such as
// "clusters[0].path", at the line of the key (or of its nearest parent that is written).
func (c *Config) Errorf(key, format string, args ...any) error {
	return c.errorf(key, format, args...)
}

// errorf returns an *Error "file:line: key: message".
func (c *Config) errorf(key, format string, args ...any) error {
	return &Error{File: c.name, Line: c.line(key), Message: key + ": " + fmt.Sprintf(format, args...), key: key}
}

var unknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type \S+$`)

// decodeError rewrites yaml.v3's errors as "file:line: message", one per error of a
// TypeError; an unknown key is named by its path, as the other errors of Parse are.
func decodeError(name string, data []byte, err error) []*Error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		if n, msg, ok := yamlLine(strings.TrimPrefix(err.Error(), "yaml: ")); ok {
			// An error at the end of the stream (an unclosed "[") is past the last line.
			return []*Error{{File: name, Line: min(n, yamlerr.LastLine(data)), Message: msg}}
		}
		return []*Error{{File: name, Message: err.Error()}}
	}
	lines := keyLines(data)
	var out []*Error
	for _, e := range te.Errors {
		one := &Error{File: name, Message: e}
		if m := unknownField.FindStringSubmatch(e); m != nil {
			line, _ := strconv.Atoi(m[1])
			if key := keyAt(lines, m[2], line); key != "" {
				one = &Error{File: name, Line: line, Message: key + ": unknown key", key: key}
			}
		}
		if one.Line == 0 {
			if line, msg, ok := yamlLine(e); ok {
				key := deepestAt(lines, line)
				if key != "" {
					msg = key + ": " + msg
				}
				one = &Error{File: name, Line: line, Message: msg, key: key}
			}
		}
		out = append(out, one)
	}
	if out == nil {
		return []*Error{{File: name, Message: err.Error()}}
	}
	return out
}

// joinErrors returns nil for no error, else the first by line as an *Error whose More
// holds the others in line order (a file-wide error, line 0, first).
func joinErrors(errs []*Error) error {
	if len(errs) == 0 {
		return nil
	}
	sorted := slices.Clone(errs)
	slices.SortStableFunc(sorted, func(a, b *Error) int { return a.Line - b.Line })
	first := *sorted[0]
	first.More = sorted[1:]
	return &first
}

// All lists an error of Parse, ParseKnown, CheckRules or Load one by one, in line order:
// an *Error and its More (each without More), or err alone when it is no *Error.
func All(err error) []error {
	var ce *Error
	if !errors.As(err, &ce) {
		return []error{err}
	}
	head := *ce
	head.More = nil
	out := []error{&head}
	for _, m := range ce.More {
		out = append(out, m)
	}
	return out
}

// related reports whether key paths a and b are the same or one holds the other.
func related(a, b string) bool {
	within := func(x, y string) bool {
		return strings.HasPrefix(x, y) && (len(x) == len(y) || x[len(y)] == '.' || x[len(y)] == '[')
	}
	return a != "" && b != "" && (within(a, b) || within(b, a))
}

// yamlLine splits yaml.v3's "line N: message", N as the 1-based line (yamlerr.Line: a
// parser error's N is 0-based).
func yamlLine(e string) (int, string, bool) {
	if line, msg, ok := yamlerr.Line(e); ok {
		return line, msg, true
	}
	rest, ok := strings.CutPrefix(e, "line ")
	if !ok {
		return 0, "", false
	}
	n, msg, ok := strings.Cut(rest, ": ")
	line, err := strconv.Atoi(n)
	if !ok || err != nil {
		return 0, "", false
	}
	return line, msg, true
}

// keyAt finds the path of key written at line.
func keyAt(lines map[string]int, key string, line int) string {
	for _, k := range slices.Sorted(maps.Keys(lines)) {
		if lines[k] == line && (k == key || strings.HasSuffix(k, "."+key)) {
			return k
		}
	}
	return ""
}

// deepestAt returns the path of the innermost key written at line, when the keys there are
// nested in one another ("clusters[0]", "clusters[0].name"); "" when they are siblings.
func deepestAt(lines map[string]int, line int) string {
	deepest := ""
	for _, k := range slices.Sorted(maps.Keys(lines)) {
		if lines[k] != line {
			continue
		}
		if deepest != "" && !strings.HasPrefix(k, deepest+".") && !strings.HasPrefix(k, deepest+"[") {
			return ""
		}
		deepest = k
	}
	return deepest
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
