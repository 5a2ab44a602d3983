package graph

import (
	"strings"

	sigsyaml "sigs.k8s.io/yaml"
)

// maxLeafDepth bounds how many times CollectionLeaves parses a leaf again (a patch string
// inside a list inside a Secret value): each level is a whole YAML document of the value.
const maxLeafDepth = 4

// CollectionLeaves returns the scalar leaves (strings, and numbers and booleans as
// written: LeafStrings) of v when v, a Secret value, parses as a YAML flow or block
// collection (a map or a list, "{inj: X}", "[a, b]"); nil for a scalar or text YAML cannot
// parse. Postbuild substitution writes the value into a manifest's YAML text before it is
// parsed (fluxcd/pkg kustomize kustomize_varsub.go SubstituteVariables: envsubst on the
// YAML, then yaml.YAMLToJSON), so the object holds the leaves, not the value: each is a
// Secret value itself. A leaf that parses as a collection again (a patch's text) gives its
// own leaves too, up to maxLeafDepth levels. A leaf under MinValueBytes or word-shaped
// (WordShaped: "ConfigMap", "SECRET", "add") is left out: callers replace these texts
// wherever they stand, and such a leaf would cut ordinary words; substitution still marks
// it at its position (render/kustomize collectionFields).
func CollectionLeaves(v string) []string {
	return collectionLeaves(v, maxLeafDepth)
}

func collectionLeaves(v string, depth int) []string {
	t := strings.TrimSpace(v)
	if depth == 0 || t == "" || !strings.ContainsAny(t, "{[:-") {
		return nil
	}
	var parsed any
	if sigsyaml.Unmarshal([]byte(t), &parsed) != nil {
		return nil
	}
	switch parsed.(type) {
	case map[string]any, []any:
	default:
		return nil
	}
	var out []string
	for _, l := range LeafStrings(parsed) {
		if len(l) >= MinValueBytes && !WordShaped(l) {
			out = append(out, l)
		}
		out = append(out, collectionLeaves(l, depth-1)...)
	}
	return out
}

// SecretParts returns the texts a Secret value v reaches other texts in besides itself:
// its key lines (KeyLines, a multi-line key file) and its collection leaves
// (CollectionLeaves, a value that YAML parses into a map or list). Redaction and the
// chart's placeholders treat each as a Secret value.
func SecretParts(v string) []string {
	return append(KeyLines(v), CollectionLeaves(v)...)
}
