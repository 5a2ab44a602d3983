package helmrelease

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestPlaceholdersObject: every Secret-derived field of an object, wherever it stands (a
// ResourceSet's inputs, a map key above another field, a number), is written with
// placeholders; a field with no Secret part and every other field keep their values, and
// the object given is not changed.
func TestPlaceholdersObject(t *testing.T) {
	p := NewPlaceholders([]byte("0123456789abcdef0123456789abcdef"))
	secret := func(path []string, key bool, parts ...graph.TextPart) graph.SecretField {
		return graph.SecretField{Path: path, Key: key, Parts: parts}
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"kind": "ResourceSet",
		"spec": map[string]any{"inputs": []any{map[string]any{
			"tok": "pre-Oatok9", "pin": int64(48213), "plain": "Oaplain9",
			"Oakey9": map[string]any{"inner": "Oainner9"},
		}}},
	}}
	fields := []graph.SecretField{
		secret([]string{"spec", "inputs", "0", "tok"}, false, graph.TextPart{Text: "pre-"}, graph.TextPart{Text: "Oatok9", Secret: true}),
		secret([]string{"spec", "inputs", "0", "pin"}, false, graph.TextPart{Text: "48213", Secret: true}),
		secret([]string{"spec", "inputs", "0", "plain"}, false, graph.TextPart{Text: "Oaplain9"}),
		// The key first: the field below it must still be found.
		secret([]string{"spec", "inputs", "0", "Oakey9"}, true, graph.TextPart{Text: "Oakey9", Secret: true}),
		secret([]string{"spec", "inputs", "0", "Oakey9", "inner"}, false, graph.TextPart{Text: "Oainner9", Secret: true}),
	}
	got, replaced := p.Object(u, fields)
	if !replaced {
		t.Fatal("nothing replaced")
	}
	want := map[string]any{
		"kind": "ResourceSet",
		"spec": map[string]any{"inputs": []any{map[string]any{
			"tok": "pre-" + p.Text("Oatok9"), "pin": p.Number("48213"), "plain": "Oaplain9",
			p.Text("Oakey9"): map[string]any{"inner": p.Text("Oainner9")},
		}}},
	}
	if d := cmp.Diff(want, got.Object); d != "" {
		t.Errorf("Object (-want +got):\n%s", d)
	}
	if tok := u.Object["spec"].(map[string]any)["inputs"].([]any)[0].(map[string]any)["tok"]; tok != "pre-Oatok9" {
		t.Errorf("the object given was changed: tok %v", tok)
	}
	if same, replaced := p.Object(u, fields[2:3]); replaced || same != u {
		t.Errorf("a field with no Secret part: replaced %v, same object %v", replaced, same == u)
	}
}
