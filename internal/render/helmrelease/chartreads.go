package helmrelease

import (
	"bytes"
	"strings"
	"text/template/parse"

	"github.com/gobwas/glob"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// fileReads is what a chart's templates can read of its files. Helm's engine gives a
// chart's files to its templates only as the top-level object's "Files" key
// (helm.sh/helm/v4 pkg/engine/engine.go recAllTpls: "Files": newFiles(accessor.Files()),
// beside Chart, Release, Capabilities, Values, Subcharts, and Template at render), whose
// methods are Get, GetBytes, Lines (one file by exact name), Glob (the files matching a
// gobwas/glob pattern with '/' as separator, "**" when the pattern does not compile) and
// AsConfig, AsSecrets (pkg/engine/files.go).
type fileReads struct {
	// all is true when a template may read any file: a dynamic name, the top-level
	// object or .Files used whole, tpl, or a template that does not parse.
	all bool
	// names are the files read by a literal name (.Files.Get/GetBytes/Lines "name").
	names map[string]bool
	// globs are the patterns of .Files.Glob "pattern".
	globs []glob.Glob
}

// none reports whether no template reads any file.
func (r *fileReads) none() bool { return !r.all && len(r.names) == 0 && len(r.globs) == 0 }

// reads reports whether a template may read the file name (relative to its chart).
func (r *fileReads) reads(name string) bool {
	if r.all || r.names[name] {
		return true
	}
	for _, g := range r.globs {
		if g.Match(name) {
			return true
		}
	}
	return false
}

// templateReads returns what the templates of ch and of its subcharts can read of their
// charts' files. Named templates are shared by every chart of a render and run with the
// data their caller passes, so one set stands for all the charts: a name read anywhere
// counts in each chart, and a define's dot is taken for the top-level object.
func templateReads(ch *chart.Chart) *fileReads {
	r := &fileReads{names: map[string]bool{}}
	eachChart(ch, func(c *chart.Chart) {
		for _, t := range c.Templates {
			if r.all {
				return
			}
			r.template(t.Name, string(t.Data))
		}
	})
	return r
}

// template adds what the template text (of the file name) reads; a text that does not
// parse as Helm parses it (text/template) reads everything, as nothing is known of it.
func (r *fileReads) template(name, text string) {
	trees := map[string]*parse.Tree{}
	t := parse.New(name)
	t.Mode = parse.SkipFuncCheck
	if _, err := t.Parse(text, "", "", trees); err != nil {
		r.all = true
		return
	}
	for _, tr := range trees {
		w := readWalker{r: r, aliases: map[string]bool{}}
		if tr.Root != nil {
			w.list(tr.Root, true)
		}
	}
}

// readWalker walks one parsed template for fileReads. dotRoot says whether dot may be the
// top-level object; aliases are the variables that may hold it ($ always does: it is the
// data the template or define was executed with).
type readWalker struct {
	r       *fileReads
	aliases map[string]bool
}

func (w readWalker) list(l *parse.ListNode, dotRoot bool) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		w.node(n, dotRoot)
	}
}

func (w readWalker) node(n parse.Node, dotRoot bool) {
	switch n := n.(type) {
	case *parse.ActionNode:
		if w.pipe(n.Pipe, dotRoot) && len(n.Pipe.Decl) == 0 {
			w.r.all = true // {{ . }} prints the top-level object, Files included
		}
	case *parse.IfNode:
		w.pipe(n.Pipe, dotRoot)
		w.list(n.List, dotRoot)
		w.list(n.ElseList, dotRoot)
	case *parse.WithNode:
		root := w.pipe(n.Pipe, dotRoot)
		w.list(n.List, root)
		w.list(n.ElseList, dotRoot)
	case *parse.RangeNode:
		if w.pipe(n.Pipe, dotRoot) {
			w.r.all = true // each top-level value, Files among them
		}
		w.list(n.List, false)
		w.list(n.ElseList, dotRoot)
	case *parse.TemplateNode:
		if n.Pipe != nil && !w.rootOnly(n.Pipe, dotRoot) {
			w.pipe(n.Pipe, dotRoot)
		}
	case *parse.ListNode:
		w.list(n, dotRoot)
	}
}

// pipe walks p and reports whether its value may be the top-level object (p is one bare
// reference to it); the variables it declares then hold it too.
func (w readWalker) pipe(p *parse.PipeNode, dotRoot bool) bool {
	if p == nil {
		return false
	}
	if w.rootOnly(p, dotRoot) {
		for _, v := range p.Decl {
			w.aliases[v.Ident[0]] = true
		}
		return true
	}
	for _, c := range p.Cmds {
		w.cmd(c, dotRoot)
	}
	return false
}

// rootOnly reports whether p is one command of one operand, a bare reference to the
// top-level object (., $ or an alias of it).
func (w readWalker) rootOnly(p *parse.PipeNode, dotRoot bool) bool {
	return len(p.Cmds) == 1 && len(p.Cmds[0].Args) == 1 && w.bareRoot(p.Cmds[0].Args[0], dotRoot)
}

func (w readWalker) bareRoot(n parse.Node, dotRoot bool) bool {
	switch n := n.(type) {
	case *parse.DotNode:
		return dotRoot
	case *parse.VariableNode:
		return len(n.Ident) == 1 && w.isRoot(n.Ident[0])
	case *parse.PipeNode:
		return w.rootOnly(n, dotRoot)
	}
	return false
}

func (w readWalker) isRoot(v string) bool { return v == "$" || w.aliases[v] }

// cmd walks one command: a function call, a method call on a field chain, or an operand.
func (w readWalker) cmd(c *parse.CommandNode, dotRoot bool) {
	if len(c.Args) == 0 {
		return
	}
	if id, ok := c.Args[0].(*parse.IdentifierNode); ok {
		switch id.Ident {
		case "tpl":
			w.r.all = true // template text made at render time, values' text included
			return
		case "include":
			// include "name" . runs a define with the top-level object, as {{ template }}:
			// its body is walked as such.
			if len(c.Args) == 3 && w.bareRoot(c.Args[2], dotRoot) {
				w.operand(c.Args[1], dotRoot, nil)
				return
			}
		}
		for _, a := range c.Args[1:] {
			w.operand(a, dotRoot, nil)
		}
		return
	}
	w.operand(c.Args[0], dotRoot, c.Args[1:])
	for _, a := range c.Args[1:] {
		w.operand(a, dotRoot, nil)
	}
}

// operand walks one operand; args are the arguments it is called with when it heads its
// command (a method call).
func (w readWalker) operand(n parse.Node, dotRoot bool, args []parse.Node) {
	switch n := n.(type) {
	case *parse.DotNode:
		if dotRoot {
			w.r.all = true // the top-level object handed to a function (toYaml ., index . "Files")
		}
	case *parse.IdentifierNode:
		if n.Ident == "tpl" {
			w.r.all = true
		}
	case *parse.VariableNode:
		if w.isRoot(n.Ident[0]) {
			w.chain(n.Ident[1:], args)
		}
	case *parse.FieldNode:
		if dotRoot {
			w.chain(n.Ident, args)
		}
	case *parse.ChainNode:
		if p, ok := n.Node.(*parse.PipeNode); ok && w.rootOnly(p, dotRoot) {
			w.chain(n.Field, args)
			return
		}
		w.operand(n.Node, dotRoot, nil)
	case *parse.PipeNode:
		if w.pipe(n, dotRoot) {
			w.r.all = true // (.) as an operand
		}
	}
}

// chain walks a field chain on the top-level object (fields, the names after it; args,
// what it is called with). Values, Release, Chart, Capabilities and Template hold no file;
// Files is read only by a literal name or pattern; Subcharts.<name> is a subchart's
// top-level object. Anything else (the object whole, .Files whole, a dynamic name) may
// read any file.
func (w readWalker) chain(fields []string, args []parse.Node) {
	if len(fields) == 0 {
		w.r.all = true
		return
	}
	switch fields[0] {
	case "Values", "Release", "Chart", "Capabilities", "Template":
		return
	case "Subcharts":
		if len(fields) >= 3 {
			w.chain(fields[2:], args)
			return
		}
	case "Files":
		if len(fields) == 2 && len(args) == 1 {
			if s, ok := args[0].(*parse.StringNode); ok {
				switch fields[1] {
				case "Get", "GetBytes", "Lines":
					w.r.names[s.Text] = true
					return
				case "Glob":
					g, err := glob.Compile(s.Text, '/')
					if err != nil {
						g, _ = glob.Compile("**") // as files.go Glob
					}
					w.r.globs = append(w.r.globs, g)
					return
				}
			}
		}
	}
	w.r.all = true
}

// mayHoldSecret reports whether data (the chart file name) may hold a document maskObject
// or maskLiterals finds values in: a kind: key (YAML or JSON, quoted or not, its value on
// the next line too) whose value is Secret or ends in List, or an alias, anchor or tag
// there, which only a parse resolves; a kustomization file naming secretGenerator; any
// file with a double-quoted escape that could spell either (\x, \u, \U, an escaped line
// break). Cheaper than the search for "Secret" it replaces: that word stands in the
// descriptions of most CRDs, whose YAML is large and slow to parse.
func mayHoldSecret(name string, data []byte) bool {
	if isKustomizationFile(name) && bytes.Contains(data, []byte("secretGenerator")) {
		return true
	}
	for _, esc := range []string{`\x`, `\u`, `\U`, "\\\n", "\\\r"} {
		if bytes.Contains(data, []byte(esc)) {
			return true
		}
	}
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte("kind"))
		if j < 0 {
			return false
		}
		i += j + len("kind")
		if secretKindValue(data[i:]) {
			return true
		}
	}
}

// secretKindValue reports whether b, what follows a "kind" in a file, is a key's end, a
// colon and a value maskObject reads (Secret, *List), or one only a parse resolves.
func secretKindValue(b []byte) bool {
	k := 0
	if k < len(b) && (b[k] == '"' || b[k] == '\'') {
		k++
	}
	k = skipBlanks(b, k)
	if k >= len(b) || b[k] != ':' {
		return false
	}
	k = skipBlanks(b, k+1)
	if k < len(b) && (b[k] == '*' || b[k] == '&' || b[k] == '!') {
		return true
	}
	if k < len(b) && (b[k] == '"' || b[k] == '\'') {
		k++
	}
	s := k
	for k < len(b) && alnum(b[k]) {
		k++
	}
	v := string(b[s:k])
	return v == "Secret" || strings.HasSuffix(v, "List")
}

// skipBlanks returns the index of the first byte of b from k that is no space, tab, line
// break or part of a # comment.
func skipBlanks(b []byte, k int) int {
	for k < len(b) {
		switch b[k] {
		case ' ', '\t', '\r', '\n':
			k++
		case '#':
			for k < len(b) && b[k] != '\n' {
				k++
			}
		default:
			return k
		}
	}
	return k
}
