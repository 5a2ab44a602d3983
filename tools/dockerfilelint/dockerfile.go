// Package dockerfilelint is CI tooling, not part of the bot: it reads the repository's
// Dockerfile with BuildKit's own parser, so that tests can check it and run its build
// stage's `go build` where no Docker engine runs: the command is taken from the
// Dockerfile, never copied, so the two cannot drift.
package dockerfilelint

import (
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerfile/shell"
)

// File is a parsed Dockerfile split into its stages, in file order.
type File struct {
	Stages []Stage
	escape rune // the escape token: a `# escape=` directive, else \
}

// Stage is one FROM and the instructions after it.
type Stage struct {
	Name  string // the AS name, "" without one
	Image string // the FROM image, or an earlier stage's name
	Line  int    // 1-based line of the FROM
	nodes []*parser.Node
}

// Parse parses a Dockerfile. Errors name the line; BuildKit's parser warnings (such as
// empty continuation lines, which a future BuildKit rejects) are errors too.
func Parse(r io.Reader) (*File, error) {
	res, err := parser.Parse(r)
	if err != nil {
		return nil, err
	}
	if len(res.Warnings) > 0 {
		w := res.Warnings[0]
		return nil, fmt.Errorf("line %d: %s", w.Location.Start.Line, w.Short)
	}
	f := &File{escape: res.EscapeToken}
	for _, n := range res.AST.Children {
		if !is(n, "from") {
			if len(f.Stages) > 0 { // an ARG before the first FROM belongs to no stage
				st := &f.Stages[len(f.Stages)-1]
				st.nodes = append(st.nodes, n)
			}
			continue
		}
		args := words(n)
		if len(args) == 0 {
			return nil, fmt.Errorf("line %d: FROM without an image", n.StartLine)
		}
		st := Stage{Image: args[0], Line: n.StartLine}
		if len(args) == 3 && strings.EqualFold(args[1], "as") {
			st.Name = args[2]
		}
		f.Stages = append(f.Stages, st)
	}
	if len(f.Stages) == 0 {
		return nil, fmt.Errorf("no FROM")
	}
	return f, nil
}

func is(n *parser.Node, instruction string) bool { return strings.EqualFold(n.Value, instruction) }

// words returns an instruction's arguments as the parser split them.
func words(n *parser.Node) []string {
	var out []string
	for a := n.Next; a != nil; a = a.Next {
		out = append(out, a.Value)
	}
	return out
}

// GoBuild is a stage's `go build` line as the Dockerfile runs it.
type GoBuild struct {
	Env  []string // the NAME=value assignments before `go`
	Args []string // the words after `go`, starting with "build"
	Out  string   // the value of -o
}

var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// GoBuild finds the RUN of st that runs `go build` and expands it as BuildKit would, with
// the stage's ARG and ENV values; buildArgs stand for --build-arg values and the platform
// arguments (TARGETOS, TARGETARCH). The RUN must be one simple command in shell form, so
// that running its words is running it; otherwise, or with an undefined variable, an
// error names the line.
func (f *File) GoBuild(st Stage, buildArgs map[string]string) (GoBuild, error) {
	lex := shell.NewLex(f.escape)
	vars := map[string]string{}
	env := func() shell.EnvGetter {
		var kv []string
		for k, v := range vars {
			kv = append(kv, k+"="+v)
		}
		return shell.EnvsFromSlice(kv)
	}
	for _, n := range st.nodes {
		switch {
		case is(n, "arg"):
			for _, a := range words(n) {
				name, def, hasDef := strings.Cut(a, "=")
				if v, ok := buildArgs[name]; ok {
					vars[name] = v
				} else if hasDef {
					v, _, err := lex.ProcessWord(def, env())
					if err != nil {
						return GoBuild{}, fmt.Errorf("line %d: %w", n.StartLine, err)
					}
					vars[name] = v
				}
			}
		case is(n, "env"):
			a := words(n) // name, value, separator triples
			for i := 0; i+1 < len(a); i += 3 {
				v, _, err := lex.ProcessWord(a[i+1], env())
				if err != nil {
					return GoBuild{}, fmt.Errorf("line %d: %w", n.StartLine, err)
				}
				vars[a[i]] = v
			}
		case is(n, "run"):
			text := strings.Join(words(n), " ")
			if strings.Contains(text, "go build") {
				return goBuild(lex, n, text, env())
			}
		}
	}
	return GoBuild{}, fmt.Errorf("stage %q runs no go build", st.Name)
}

func goBuild(lex *shell.Lex, n *parser.Node, text string, env shell.EnvGetter) (GoBuild, error) {
	if n.Attributes["json"] {
		return GoBuild{}, fmt.Errorf("line %d: the go build RUN must use the shell form", n.StartLine)
	}
	if strings.ContainsAny(text, ";&|<>`\n") || strings.Contains(text, "$(") {
		return GoBuild{}, fmt.Errorf("line %d: the go build RUN must be one simple command", n.StartLine)
	}
	res, err := lex.ProcessWordWithMatches(text, env)
	if err != nil {
		return GoBuild{}, fmt.Errorf("line %d: %w", n.StartLine, err)
	}
	if len(res.Unmatched) > 0 {
		return GoBuild{}, fmt.Errorf("line %d: undefined variables %v", n.StartLine, slices.Sorted(maps.Keys(res.Unmatched)))
	}
	var gb GoBuild
	w := res.Words
	for len(w) > 0 && assignment.MatchString(w[0]) {
		gb.Env, w = append(gb.Env, w[0]), w[1:]
	}
	if len(w) < 2 || w[0] != "go" || w[1] != "build" {
		return GoBuild{}, fmt.Errorf("line %d: want [NAME=value...] go build ..., got %q", n.StartLine, res.Words)
	}
	gb.Args = w[1:]
	for i, a := range gb.Args {
		if a == "-o" && i+1 < len(gb.Args) {
			gb.Out = gb.Args[i+1]
		} else if v, ok := strings.CutPrefix(a, "-o="); ok {
			gb.Out = v
		}
	}
	if gb.Out == "" {
		return GoBuild{}, fmt.Errorf("line %d: go build without -o", n.StartLine)
	}
	return gb, nil
}
