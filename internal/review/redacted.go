package review

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// Redacted is o's body as a review shows it, on its own: a Secret's data and stringData
// values, SOPS metadata and ciphertext, and the values of postBuild variables read from a
// Secret (and what operators made of them) replaced by "<redacted>" (the keys stay): at the
// fields substitution wrote them (whatever their length) and by value elsewhere, as
// are a Secret's own values wherever else in it they occur (its metadata). o.Body is not changed; the result may
// be o.Body itself when there is nothing to redact.
func Redacted(o *graph.Object) *unstructured.Unstructured { return RedactedIn(o, nil) }

// RedactedIn is Redacted for an object of graphs whose Common values are common (from
// CommonValues): those are redacted at their positions only, as in the review's diffs.
func RedactedIn(o *graph.Object, common Common) *unstructured.Unstructured {
	return RedactedWith(o, common, nil)
}

// RedactedWith is RedactedIn followed by redactText (GraphTextRedactor of the graphs
// shown; nil for none) on every string and key of the result, before it is marshalled:
// the YAML encoder folds long strings and splits multi-line ones, which a redaction of
// the marshalled text would no longer find whole.
func RedactedWith(o *graph.Object, common Common, redactText func(string) string) *unstructured.Unstructured {
	none := &unstructured.Unstructured{Object: map[string]any{}}
	// In yamlOf's order: a Secret's data and SOPS values whole, then the substituted
	// fields left (their literal parts in a Secret's value are not shown).
	u := o.Body
	if o.ID.Group == "" && o.ID.Kind == "Secret" {
		u = redact(u, none, false)
	}
	u = redactSOPS(u, o.Body, none, false)
	u = maskFields(u, o.Body, o.SecretFields, nil, false)
	u = redactSubstituted(u, bodySecrets(o, common), nil, false)
	return redactTree(redactOwnMetadata(u, o, nil, false), redactText)
}
