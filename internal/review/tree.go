package review

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// redactTree returns u with replace (the review's or build's redaction of text,
// textRedactor.Replace) applied to every string scalar and map key of its body, before
// it is marshalled: the YAML encoder folds a string over 80 columns that holds spaces
// and writes one with a newline as a block scalar, one line per line, so a value that
// the redaction of the marshalled text looks for whole is no longer whole there. The
// text is still redacted after (for what is not a string here: numbers as written).
// A key whose redacted form another key of the map already has is written distinct
// (distinctKey: "<redacted> (2)"); keys that keep their text are placed first, the
// renamed ones in sorted order. u is not changed; nil replace or no
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
		var renamed []string // keys whose redacted form differs, placed after the others
		for k, e := range x {
			r, ok := redactNode(e, replace)
			changed = changed || ok
			if replace(k) != k {
				renamed = append(renamed, k)
			}
			out[k] = r
		}
		slices.Sort(renamed)
		for _, k := range renamed {
			r := out[k]
			delete(out, k)
			out[distinctKey(out, replace(k))] = r
		}
		if !changed && len(renamed) == 0 {
			return v, false
		}
		return out, true
	}
	return v, false
}

// distinctKey returns k, or when m holds k already the first of "k (2)", "k (3)", … that
// it does not: a key redacted to the text of another key (a literal "<redacted>" beside a
// key written from a Secret) stays a separate entry, so a pull request cannot hide one.
func distinctKey(m map[string]any, k string) string {
	if _, ok := m[k]; !ok {
		return k
	}
	for n := 2; ; n++ {
		if c := fmt.Sprintf("%s (%d)", k, n); !has(m, c) {
			return c
		}
	}
}

func has(m map[string]any, k string) bool { _, ok := m[k]; return ok }
