package kustomize

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/fluxcd/pkg/envsubst/parse"
	"sigs.k8s.io/kustomize/api/resource"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// exprField is a string field of an object before substitution whose text holds an
// envsubst expression: a candidate for a type change once substituted.
type exprField struct {
	path   []string
	vars   []string
	secret bool // a variable it reads comes from a Secret
}

// fieldsOf walks data (an object as JSON, before postBuild substitution) field by field,
// as Flux substitutes its YAML text, and returns the fields whose substituted text derives
// from a Secret variable (keys included), with the paths they have after substitution, and
// every string field whose text holds an expression. A text envsubst cannot parse is left
// out: the substitution of the whole object fails on it anyway.
func (e *evaluator) fieldsOf(data []byte) ([]graph.SecretField, []exprField) {
	var obj any
	if json.Unmarshal(data, &obj) != nil {
		return nil, nil
	}
	var secret []graph.SecretField
	var exprs []exprField
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				key := k
				if strings.Contains(k, "$") {
					if root, ok := parseExpr(k); ok {
						parts := e.eval(root)
						key = graph.SecretField{Parts: parts}.Text()
						if hasSecret(parts) {
							secret = append(secret, graph.SecretField{Path: appendPath(path, key), Key: true, Parts: parts})
						}
					}
				}
				walk(c, appendPath(path, key))
			}
		case []any:
			for i, c := range x {
				walk(c, appendPath(path, strconv.Itoa(i)))
			}
		case string:
			if !strings.Contains(x, "$") {
				return
			}
			root, ok := parseExpr(x)
			if !ok {
				return
			}
			parts := e.eval(root)
			vars := readVars(root)
			s := hasSecret(parts)
			if s {
				secret = append(secret, graph.SecretField{Path: path, Parts: parts})
			}
			if len(vars) > 0 {
				f := exprField{path: path, vars: vars}
				for _, v := range vars {
					f.secret = f.secret || e.secret[v]
				}
				exprs = append(exprs, f)
			}
		}
	}
	walk(obj, nil)
	slices.SortFunc(secret, func(a, b graph.SecretField) int { return slices.Compare(a.Path, b.Path) })
	return secret, exprs
}

// typeChanges returns the fields of exprs that are no longer strings in post (the object
// after substitution): the type each became, and its value unless a Secret variable
// wrote it.
func typeChanges(exprs []exprField, post map[string]any) []graph.TypeChange {
	var out []graph.TypeChange
	for _, f := range exprs {
		v, ok := graph.ValueAt(post, f.path)
		if !ok {
			continue
		}
		t := yamlType(v)
		if t == "" {
			continue
		}
		tc := graph.TypeChange{Path: f.path, Vars: f.vars, Type: t}
		if !f.secret {
			if y, err := sigsyaml.Marshal(v); err == nil {
				tc.Value = strings.TrimSuffix(string(y), "\n")
			}
		}
		out = append(out, tc)
	}
	slices.SortFunc(out, func(a, b graph.TypeChange) int { return slices.Compare(a.Path, b.Path) })
	return out
}

// yamlType names the type of a value that is not a string: "integer", "number",
// "boolean" or "null"; "" for a string (or a map or list, which no scalar text becomes
// without a YAML error).
func yamlType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case int, int32, int64:
		return "integer"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	}
	return ""
}

// parseExpr parses a text that holds '$'; false when envsubst cannot parse it or it has
// no expression.
func parseExpr(s string) (parse.Node, bool) {
	tree, err := parse.Parse(s)
	if err != nil {
		return nil, false
	}
	return tree.Root, true
}

// readVars lists the variables the expressions of n read, in order, without repeats.
func readVars(n parse.Node) []string {
	var out []string
	var walk func(parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			for _, c := range n.Nodes {
				walk(c)
			}
		case *parse.FuncNode:
			if !slices.Contains(out, n.Param) {
				out = append(out, n.Param)
			}
			for _, a := range n.Args {
				walk(a)
			}
		}
	}
	walk(n)
	return out
}

func hasSecret(parts []graph.TextPart) bool {
	return slices.ContainsFunc(parts, func(p graph.TextPart) bool { return p.Secret })
}

// appendPath returns path with p added, never sharing path's backing array.
func appendPath(path []string, p string) []string {
	return append(slices.Clip(path), p)
}

// substitutedTypes returns the type changes of exprs in r as substitution left it.
func substitutedTypes(r *resource.Resource, exprs []exprField) []graph.TypeChange {
	if len(exprs) == 0 {
		return nil
	}
	data, err := NodeJSON(&r.RNode)
	if err != nil {
		return nil
	}
	var post map[string]any
	if json.Unmarshal(data, &post) != nil {
		return nil
	}
	return typeChanges(exprs, post)
}
