package helmrelease

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// The fields of spec.values substitution wrote from a Secret become placeholders (the
// Secret-derived parts only, keys renamed); a number becomes a number placeholder (hostile
// case helm: "${PIN}" of 48213 reached sha256sum unchanged), a boolean stays, a field outside
// spec.values and a path leading nowhere are left alone, and hr is not changed.
func TestWithPlaceholderFields(t *testing.T) {
	hr := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "ab"},
		"spec": map[string]any{"values": map[string]any{
			"url": "http://ab:80", "pin": int64(1234), "on": true, "k-ab": "v", "list": []any{"x", "ab"},
		}},
	}}
	sec := func(s string) graph.TextPart { return graph.TextPart{Text: s, Secret: true} }
	lit := func(s string) graph.TextPart { return graph.TextPart{Text: s} }
	fields := []graph.SecretField{
		{Path: []string{"metadata", "name"}, Parts: []graph.TextPart{sec("ab")}},
		{Path: []string{"spec", "values", "url"}, Parts: []graph.TextPart{lit("http://"), sec("ab"), lit(":80")}},
		{Path: []string{"spec", "values", "pin"}, Parts: []graph.TextPart{sec("1234")}},
		{Path: []string{"spec", "values", "on"}, Parts: []graph.TextPart{sec("true")}},
		{Path: []string{"spec", "values", "k-ab"}, Key: true, Parts: []graph.TextPart{lit("k-"), sec("ab")}},
		{Path: []string{"spec", "values", "list", "1"}, Parts: []graph.TextPart{sec("ab")}},
		{Path: []string{"spec", "values", "gone", "x"}, Parts: []graph.TextPart{sec("ab")}},
	}
	got, ok := WithPlaceholderFields(hr, fields)
	if !ok {
		t.Fatal("no field replaced")
	}
	p := SecretPlaceholder("ab")
	want := map[string]any{
		"metadata": map[string]any{"name": "ab"},
		"spec": map[string]any{"values": map[string]any{
			"url": "http://" + p + ":80", "pin": SecretNumberPlaceholder("1234"), "on": true, "k-" + p: "v", "list": []any{"x", p},
		}},
	}
	if d := cmp.Diff(want, got.Object); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if v := hr.Object["spec"].(map[string]any)["values"].(map[string]any)["url"]; v != "http://ab:80" {
		t.Errorf("hr changed: url = %v", v)
	}
	if same, ok := WithPlaceholderFields(hr, fields[:1]); ok || same != hr {
		t.Errorf("a field outside spec.values: %v, %v; want hr itself, false", same, ok)
	}
}
