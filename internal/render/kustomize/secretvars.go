package kustomize

import (
	"strconv"
	"strings"

	"github.com/fluxcd/pkg/envsubst"
	"github.com/fluxcd/pkg/envsubst/parse"

	"github.com/tiergate/tiergate/internal/render/graph"
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
// that value. Values shorter than minRedactBytes are left out.
func secretDerived(root parse.Node, vars map[string]string, secret map[string]bool) []string {
	if len(secret) == 0 {
		return nil
	}
	e := &evaluator{vars: vars, secret: secret}
	e.eval(root)
	return e.derived
}

// evaluator evaluates envsubst expressions as Flux writes them and tracks which results
// derive from a Secret variable. It is the one evaluator of substituted text: each
// expression is evaluated by Flux's own envsubst (pkg/envsubst Template.evalFunc), rebuilt
// as ${V<op>${arg0}<sep>${arg1}} with its arguments, already evaluated, passed as
// variables (evalFunc).
type evaluator struct {
	vars   map[string]string
	secret map[string]bool
	// derived collects, in order, the Secret-derived results of at least minRedactBytes.
	derived []string
}

// eval returns what n writes, in literal and Secret-derived pieces: an expression's result
// is Secret-derived when its variable is a Secret's or an argument it reads is; a default
// operator writes its arguments themselves when the variable is empty (envsubst
// toDefault), so their pieces stay as they are.
func (e *evaluator) eval(n parse.Node) []graph.TextPart {
	switch n := n.(type) {
	case *parse.TextNode:
		return joinParts(nil, graph.TextPart{Text: n.Value})
	case *parse.ListNode:
		var out []graph.TextPart
		for _, c := range n.Nodes {
			out = joinParts(out, e.eval(c)...)
		}
		return out
	case *parse.FuncNode:
		args := make([]string, len(n.Args))
		var argParts []graph.TextPart
		for i, a := range n.Args {
			p := e.eval(a)
			args[i] = graph.SecretField{Parts: p}.Text()
			argParts = joinParts(argParts, p...)
		}
		v, ok := evalFunc(n, args, e.vars)
		part := graph.TextPart{Text: v, Secret: e.secret[n.Param] || hasSecret(argParts)}
		if isDefaultOp(n.Name) {
			part.Secret = e.secret[n.Param]
			if e.vars[n.Param] == "" {
				part.Secret = hasSecret(argParts)
			}
		}
		if ok && part.Secret && len(v) >= minRedactBytes {
			e.derived = append(e.derived, v)
		}
		if isDefaultOp(n.Name) && e.vars[n.Param] == "" && ok && v == args0(args) {
			return argParts
		}
		return joinParts(nil, part)
	}
	return nil
}

// args0 is what toDefault writes from its arguments: their text, joined.
func args0(args []string) string { return strings.Join(args, "") }

// joinParts appends ps to out, dropping empty pieces and joining adjacent pieces of one
// kind.
func joinParts(out []graph.TextPart, ps ...graph.TextPart) []graph.TextPart {
	for _, p := range ps {
		if p.Text == "" {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Secret == p.Secret {
			out[n-1].Text += p.Text
			continue
		}
		out = append(out, p)
	}
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
