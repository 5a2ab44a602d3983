package kustomize

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"sigs.k8s.io/kustomize/api/resource"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// collectionFields returns fields with each one whose value a Secret variable made a map
// or a list (`v: ${X}` with X "{inj: …}" or "[a, b]"; fluxcd/pkg kustomize_varsub.go
// substitutes the YAML text, then parses it) replaced by one field per scalar leaf under
// it, wholly Secret-derived: the field's path no longer leads to a string, so review,
// the chart's placeholders (helmrelease WithPlaceholderFields), a child's relayed
// variables (inlineSecret) and its build fields (SpecSecrets) would find none of it.
// Map keys inside the collection keep their text (they are structure a chart reads by
// name). r is the resource after substitution; fields are left as they are when it does
// not convert.
func collectionFields(r *resource.Resource, fields []graph.SecretField) []graph.SecretField {
	if len(fields) == 0 {
		return fields
	}
	var post map[string]any
	data, err := NodeJSON(&r.RNode)
	if err != nil || json.Unmarshal(data, &post) != nil {
		return fields
	}
	var out []graph.SecretField
	for _, f := range fields {
		v, ok := graph.ValueAt(post, f.Path)
		_, isMap := v.(map[string]any)
		_, isList := v.([]any)
		if f.Key || !ok || !f.HasSecret() || !isMap && !isList {
			out = append(out, f)
			continue
		}
		out = append(out, leafFields(v, f.Path)...)
	}
	slices.SortFunc(out, func(a, b graph.SecretField) int { return slices.Compare(a.Path, b.Path) })
	return out
}

// leafFields lists a wholly Secret-derived field for each scalar leaf of v at path.
func leafFields(v any, path []string) []graph.SecretField {
	switch x := v.(type) {
	case map[string]any:
		var out []graph.SecretField
		for k, c := range x {
			out = append(out, leafFields(c, appendPath(path, k))...)
		}
		return out
	case []any:
		var out []graph.SecretField
		for i, c := range x {
			out = append(out, leafFields(c, appendPath(path, strconv.Itoa(i)))...)
		}
		return out
	case nil:
		return nil
	}
	return []graph.SecretField{{Path: path, Parts: []graph.TextPart{{Text: fmt.Sprint(v), Secret: true}}}}
}
