package rules

import (
	"slices"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// literalOutsideDocs keeps the ${VAR} expressions of o.Literal that appear outside
// documentation text. Documentation is what no controller or workload reads as a value:
// a CustomResourceDefinition's schemas (spec.versions[].schema, legacy spec.validation:
// descriptions, examples, defaults published as API docs) and annotations whose key is
// `description` or ends in `/description`. A ${VAR} shipped literally there is harmless;
// when substitution runs, Flux's envsubst rewrites these fields too (undefined-variable
// still applies).
func literalOutsideDocs(o *graph.Object) []string {
	if len(o.Literal) == 0 || o.Body == nil {
		return o.Literal
	}
	found := map[string]bool{}
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		if documentation(o.ID, path) {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				mark(found, o.Literal, k)
				walk(c, append(path, k))
			}
		case []any:
			for _, c := range v {
				walk(c, append(path, "[]"))
			}
		case string:
			mark(found, o.Literal, v)
		}
	}
	walk(o.Body.Object, nil)
	var out []string
	for _, l := range o.Literal {
		if found[l] {
			out = append(out, l)
		}
	}
	return out
}

func mark(found map[string]bool, literal []string, s string) {
	if !strings.Contains(s, "${") {
		return
	}
	for _, l := range literal {
		if strings.Contains(s, l) {
			found[l] = true
		}
	}
}

// documentation reports whether the field at path (map keys, "[]" for list items) of an
// object id is documentation text (see literalOutsideDocs).
func documentation(id graph.ObjectID, path []string) bool {
	at := func(p ...string) bool { return slices.Equal(path, p) }
	if id.Group == "apiextensions.k8s.io" && id.Kind == "CustomResourceDefinition" &&
		(at("spec", "versions", "[]", "schema") || at("spec", "validation")) {
		return true
	}
	if len(path) == 3 && path[0] == "metadata" && path[1] == "annotations" {
		return path[2] == "description" || strings.HasSuffix(path[2], "/description")
	}
	return false
}
