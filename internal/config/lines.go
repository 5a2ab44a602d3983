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
	for key != "" {
		if line, ok := c.lines[key]; ok {
			return c.name + ":" + strconv.Itoa(line)
		}
		key = key[:max(strings.LastIndexAny(key, ".["), 0)]
	}
	return c.name
}

// Errorf returns an error "file:line: key: message" for a key path such as
// "clusters[0].path", for checks made outside this package (e.g. that a cluster's path
// exists in the head tree); file is the name the Config was parsed under.
func (c *Config) Errorf(key, format string, args ...any) error {
	return c.errorf(key, format, args...)
}

// errorf returns "file:line: key: message".
func (c *Config) errorf(key, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %s", c.where(key), key, fmt.Sprintf(format, args...))
}

var unknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type \S+$`)

// decodeError rewrites yaml.v3's errors as "file:line: message"; an unknown key is named
// by its path, as the other errors of Parse are.
func decodeError(name string, data []byte, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		if rest, ok := strings.CutPrefix(err.Error(), "yaml: line "); ok {
			return fmt.Errorf("%s:%s", name, rest)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	lines := keyLines(data)
	out := make([]string, len(te.Errors))
	for i, e := range te.Errors {
		if m := unknownField.FindStringSubmatch(e); m != nil {
			line, _ := strconv.Atoi(m[1])
			if key := keyAt(lines, m[2], line); key != "" {
				out[i] = fmt.Sprintf("%s:%d: %s: unknown key", name, line, key)
				continue
			}
		}
		if rest, ok := strings.CutPrefix(e, "line "); ok {
			n, msg, _ := strings.Cut(rest, ": ")
			line, _ := strconv.Atoi(n)
			if key := deepestAt(lines, line); key != "" {
				msg = key + ": " + msg
			}
			out[i] = name + ":" + n + ": " + msg
		} else {
			out[i] = name + ": " + e
		}
	}
	return errors.New(strings.Join(out, "\n"))
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
