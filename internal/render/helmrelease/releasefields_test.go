package helmrelease

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// copies is a client knowing one Secret value of the cluster (graph.SecretCopies).
type copies struct {
	client.Client
	value string
}

func (c copies) IsSecretValue(s string) bool { return s == c.value }

// The fields the chart sees as .Release.Name, .Release.Namespace and a targetPath key get
// placeholders for their Secret-derived parts (substituted: fields; copied by a kustomize
// replacement: a whole value equal to a Secret's), and nothing else changes: a literal
// field, a field of spec.values, a map key and a field without a Secret part stay, and hr is
// not changed (hostile6 r14, r15, r22).
func TestRelease(t *testing.T) {
	p := NewPlaceholders(make([]byte, 32))
	hr := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "h-rnfix9", "namespace": "nsfix9"},
		"spec": map[string]any{
			"releaseName": "rrcopy9", "targetNamespace": "apps", "storageNamespace": "st-rnfix9",
			"values":     map[string]any{"x": "rnfix9"},
			"valuesFrom": []any{map[string]any{"kind": "ConfigMap", "name": "a"}, map[string]any{"kind": "ConfigMap", "name": "b", "targetPath": "tpTkhd9"}},
		},
	}}
	sec := func(s string) graph.TextPart { return graph.TextPart{Text: s, Secret: true} }
	lit := func(s string) graph.TextPart { return graph.TextPart{Text: s} }
	fields := []graph.SecretField{
		{Path: []string{"metadata", "name"}, Parts: []graph.TextPart{lit("h-"), sec("rnfix9")}},
		{Path: []string{"metadata", "namespace"}, Parts: []graph.TextPart{sec("nsfix9")}},
		{Path: []string{"spec", "storageNamespace"}, Parts: []graph.TextPart{lit("st-"), sec("rnfix9")}},
		{Path: []string{"spec", "targetNamespace"}, Parts: []graph.TextPart{lit("apps")}},
		{Path: []string{"spec", "valuesFrom", "1", "targetPath"}, Parts: []graph.TextPart{lit("tp"), sec("Tkhd9")}},
		{Path: []string{"spec", "values", "x"}, Parts: []graph.TextPart{sec("rnfix9")}},
	}
	got, paths := p.Release(hr, fields, copies{value: "rrcopy9"})
	want := map[string]any{
		"metadata": map[string]any{"name": "h-" + p.Text("rnfix9"), "namespace": p.Text("nsfix9")},
		"spec": map[string]any{
			"releaseName": p.Text("rrcopy9"), "targetNamespace": "apps", "storageNamespace": "st-" + p.Text("rnfix9"),
			"values":     map[string]any{"x": "rnfix9"},
			"valuesFrom": []any{map[string]any{"kind": "ConfigMap", "name": "a"}, map[string]any{"kind": "ConfigMap", "name": "b", "targetPath": "tp" + p.Text("Tkhd9")}},
		},
	}
	if d := cmp.Diff(want, got.Object); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	wantPaths := [][]string{{"metadata", "name"}, {"metadata", "namespace"}, {"spec", "storageNamespace"},
		{"spec", "valuesFrom", "1", "targetPath"}, {"spec", "releaseName"}}
	if d := cmp.Diff(wantPaths, paths); d != "" {
		t.Errorf("paths (-want +got):\n%s", d)
	}
	if hr.GetName() != "h-rnfix9" || hr.Object["spec"].(map[string]any)["releaseName"] != "rrcopy9" {
		t.Error("hr changed")
	}
	if same, paths := p.Release(hr, fields[3:4], copies{value: "other9"}); same != hr || paths != nil {
		t.Errorf("literal fields only: %v, %v; want hr itself, none", same, paths)
	}
}
