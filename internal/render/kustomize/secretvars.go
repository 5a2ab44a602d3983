package kustomize

import (
	"strconv"
	"strings"

	"github.com/fluxcd/pkg/envsubst"
	"github.com/fluxcd/pkg/envsubst/parse"
)

// minRedactBytes is the shortest Secret-derived value redacted wherever it occurs: a
// shorter one (a port, "yes", a length from ${#VAR}) matches ordinary text everywhere and
// says little about the Secret. Such values are still redacted where they are substituted
// in a Secret's own data.
const minRedactBytes = 4

// secretDerived returns what the expressions of root that read a variable of secret
// (names of variables read from a substituteFrom Secret) evaluate to under vars: the
// transformed values ${V^^}, ${V,,}, ${V:0:8}, ${V/./-}, ${V:-default} that Flux writes
// into the object, which are not the Secret's value itself and so escape a redaction by
// that value. Each expression is evaluated by Flux's own envsubst (pkg/envsubst
// Template.evalFunc): rebuilt as ${V<op>${arg0}<sep>${arg1}} with its arguments, already
// evaluated, passed as variables. Values shorter than minRedactBytes are left out.
func secretDerived(root parse.Node, vars map[string]string, secret map[string]bool) []string {
	if len(secret) == 0 {
		return nil
	}
	var out []string
	var eval func(n parse.Node) string
	eval = func(n parse.Node) string {
		switch n := n.(type) {
		case *parse.TextNode:
			return n.Value
		case *parse.ListNode:
			var b strings.Builder
			for _, c := range n.Nodes {
				b.WriteString(eval(c))
			}
			return b.String()
		case *parse.FuncNode:
			args := make([]string, len(n.Args))
			for i, a := range n.Args {
				args[i] = eval(a)
			}
			v, ok := evalFunc(n, args, vars)
			if ok && secret[n.Param] && len(v) >= minRedactBytes {
				out = append(out, v)
			}
			return v
		}
		return ""
	}
	eval(root)
	return out
}

// argVar names the variable that carries an evaluated argument into a rebuilt expression;
// the prefix cannot be a Flux variable (names are [_a-zA-Z][_a-zA-Z0-9]*, and this one has
// a character no manifest author would choose).
func argVar(i int) string { return "__tiergate_arg" + strconv.Itoa(i) }

// evalFunc evaluates one expression n, its arguments already evaluated to args, with Flux's
// envsubst; false when n has a shape this rebuild does not know.
func evalFunc(n *parse.FuncNode, args []string, vars map[string]string) (string, bool) {
	ref := make([]string, len(args))
	for i := range args {
		ref[i] = "${" + argVar(i) + "}"
	}
	var expr string
	switch {
	case n.Name == "" && len(args) == 0:
		expr = "${" + n.Param + "}"
	case n.Name == "#" && len(args) == 0: // length
		expr = "${#" + n.Param + "}"
	case n.Name == ":" && len(args) <= 2: // substring
		expr = "${" + n.Param + ":" + strings.Join(ref, ":") + "}"
	case (n.Name == "/" || n.Name == "//" || n.Name == "/#" || n.Name == "/%") && len(args) <= 2:
		// `${P/x/}` parses to one argument, and `${P/x}` is a bad substitution to envsubst:
		// write the empty replacement back, or the value it yields is never known.
		expr = "${" + n.Param + n.Name + strings.Join(ref, "/")
		if len(args) == 1 {
			expr += "/"
		}
		expr += "}"
	case n.Name == "," || n.Name == ",," || n.Name == "^" || n.Name == "^^":
		expr = "${" + n.Param + n.Name + "}"
	default: // trims (#, ##, %, %%) and defaults (-, :-, =, :=, ?, :?, +, :+)
		expr = "${" + n.Param + n.Name + strings.Join(ref, "") + "}"
	}
	out, err := envsubst.Eval(expr, func(name string) (string, bool) {
		for i := range args {
			if name == argVar(i) {
				return args[i], true
			}
		}
		v, ok := vars[name]
		return v, ok
	})
	return out, err == nil
}
