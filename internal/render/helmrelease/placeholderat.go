package helmrelease

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// Object returns a copy of u with every field of fields (u's Object.SecretFields: the
// fields postBuild substitution or a kustomize replacement wrote from a Secret), wherever
// it stands, written with its Secret-derived parts replaced by p's placeholders, as Fields
// does under a HelmRelease's spec.values: a template that computes over the object (a
// flux-operator ResourceSet's inputs, rendered by render's expandResourceSets) then
// writes a function of the placeholder, never of the Secret value. A number field gets
// Number, a boolean keeps its value. It returns u itself and false when no field was
// replaced.
func (p Placeholders) Object(u *unstructured.Unstructured, fields []graph.SecretField) (*unstructured.Unstructured, bool) {
	var c *unstructured.Unstructured
	replaced := false
	// Deepest first: a renamed key (Key) would move the fields below it.
	fields = slices.Clone(fields)
	slices.SortStableFunc(fields, func(a, b graph.SecretField) int { return len(b.Path) - len(a.Path) })
	for _, f := range fields {
		if len(f.Path) == 0 || !f.HasSecret() {
			continue
		}
		if c == nil {
			c = u.DeepCopy()
		}
		replaced = p.replace(c.Object, f) || replaced
	}
	if !replaced {
		return u, false
	}
	return c, true
}
