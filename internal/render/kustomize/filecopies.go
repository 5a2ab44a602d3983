package kustomize

import (
	"slices"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// MarkSecretFileCopies marks, in objs (the output of one kustomize build), every data and
// binaryData value of a ConfigMap that holds a Secret value of the same build (data
// decoded or as written, stringData; minRedactBytes or more, not word-shaped) as wholly
// Secret-derived. A configMapGenerator reads its files and env files as they are
// (sigs.k8s.io/kustomize/api/kv loader.go: the file's bytes become the value), so one that
// reads a Secret's manifest, or the env file a secretGenerator reads, copies the Secret
// into a ConfigMap whose key is the whole file: substituteFrom (relayedSecretVars) and
// valuesFrom then read the key as a Secret value, and whatever they make of it (upper case,
// a substring, the YAML it parses into) is Secret-derived. Marking the key whole, not the
// value's bytes in it, is what makes those readers take it as one. Replacements and vars
// are handled apart (Copies.Mark, MarkBuildSecrets).
func MarkSecretFileCopies(objs []*graph.Object) {
	values := buildSecretValues(objs)
	var long []string
	for v := range values {
		if len(v) >= minRedactBytes && !commonShape.MatchString(v) {
			long = append(long, v)
		}
	}
	if len(long) == 0 {
		return
	}
	for _, o := range objs {
		if o.Body == nil || o.ID.Group != "" || o.ID.Kind != "ConfigMap" {
			continue
		}
		for _, field := range []string{"data", "binaryData"} {
			m, _ := o.Body.Object[field].(map[string]any)
			for k, v := range m {
				s, ok := v.(string)
				if ok && holdsAny(s, long) {
					markWhole(o, []string{field, k}, s)
				}
			}
		}
	}
}

// holdsAny reports whether s holds one of values.
func holdsAny(s string, values []string) bool {
	return slices.ContainsFunc(values, func(v string) bool { return strings.Contains(s, v) })
}

// markWhole records the field at path of o, text, as wholly Secret-derived, in place of
// what was recorded for it.
func markWhole(o *graph.Object, path []string, text string) {
	f := graph.SecretField{Path: path, Parts: []graph.TextPart{{Text: text, Secret: true}}}
	for i, g := range o.SecretFields {
		if !g.Key && slices.Equal(g.Path, path) {
			o.SecretFields[i] = f
			return
		}
	}
	o.SecretFields = append(o.SecretFields, f)
	slices.SortFunc(o.SecretFields, func(a, b graph.SecretField) int {
		return strings.Compare(fieldKey(a.Path, a.Key), fieldKey(b.Path, b.Key))
	})
}
