package review

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// redactTree returns u with replace (the review's or build's redaction of text,
// textRedactor.Replace) applied to every string scalar and map key of its body, before
// it is marshalled: the YAML encoder folds a string over 80 columns that holds spaces
// and writes one with a newline as a block scalar, one line per line, so a value that
// the redaction of the marshalled text looks for whole is no longer whole there. The
// text is still redacted after (for what is not a string here: numbers as written).
// A key whose redacted form another key of the map already has keeps its text (the
// redaction of the marshalled text replaces it). u is not changed; nil replace or no
// change returns u itself.
func redactTree(u *unstructured.Unstructured, replace func(string) string) *unstructured.Unstructured {
	if replace == nil || u == nil {
		return u
	}
	v, changed := redactNode(u.Object, replace)
	if !changed {
		return u
	}
	return &unstructured.Unstructured{Object: v.(map[string]any)}
}

// redactNode is redactTree of one node: the node, copied where anything under it
// changed, and whether it did.
func redactNode(v any, replace func(string) string) (any, bool) {
	switch x := v.(type) {
	case string:
		s := replace(x)
		return s, s != x
	case []any:
		var out []any
		for i, e := range x {
			if r, ok := redactNode(e, replace); ok {
				if out == nil {
					out = append([]any(nil), x...)
				}
				out[i] = r
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	case map[string]any:
		out, changed := make(map[string]any, len(x)), false
		for k, e := range x {
			r, ok := redactNode(e, replace)
			changed = changed || ok
			if nk := replace(k); nk != k && !has(x, nk) && !has(out, nk) {
				out[nk], changed = r, true
				continue
			}
			out[k] = r
		}
		if !changed {
			return v, false
		}
		return out, true
	}
	return v, false
}

func has(m map[string]any, k string) bool { _, ok := m[k]; return ok }
