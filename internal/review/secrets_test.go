package review

import (
	"github.com/google/go-cmp/cmp"

	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// redactStrings changes the report's strings, reached through pointers, slices and maps,
// and leaves what the report shares with the rendered graphs alone.
func TestRedactStringsCopiesShared(t *testing.T) {
	shared := &graph.ObjectID{Kind: "ConfigMap", Namespace: "default", Name: "s3cr3t-value-production"}
	partial := []graph.Partial{{Kustomization: "flux-system/s3cr3t-value", Reason: "x"}}
	r := &Report{
		Findings: []rules.Finding{{Rule: "tier-move", Object: shared, Message: "ConfigMap/default/s3cr3t-value-production moves"}},
		Clusters: []ClusterSummary{{Name: "dev", Partial: partial}},
		Timings:  map[string]float64{"s3cr3t-value": 1},
	}
	redactStrings(reflect.ValueOf(r).Elem(), redactor([]string{"s3cr3t-value"}), nil)
	if got := r.Findings[0].Object.Name + " | " + r.Findings[0].Message; got != "<redacted>-production | ConfigMap/default/<redacted>-production moves" {
		t.Errorf("redacted finding: %q", got)
	}
	if r.Clusters[0].Partial[0].Kustomization != "flux-system/<redacted>" || r.Timings["<redacted>"] != 1 {
		t.Errorf("redacted summary %+v, timings %v", r.Clusters[0].Partial, r.Timings)
	}
	if shared.Name != "s3cr3t-value-production" || partial[0].Kustomization != "flux-system/s3cr3t-value" {
		t.Errorf("the graph's values changed: %q, %q", shared.Name, partial[0].Kustomization)
	}
}

// SecretStrings keeps values of 4 bytes and more, longest first, without repeats: a
// Secret's data as written and decoded, its stringData, and objects' SecretValues.
func TestSecretStrings(t *testing.T) {
	sec := &graph.Object{ID: graph.ObjectID{Kind: "Secret", Namespace: "a", Name: "s"}}
	sec.Body = unstructuredOf(map[string]any{"data": map[string]any{"k": "aHVudGVyMg=="}, "stringData": map[string]any{"p": "abc", "q": "plain-text"}})
	cm := &graph.Object{ID: graph.ObjectID{Kind: "ConfigMap", Namespace: "a", Name: "c"}, SecretValues: []string{"HUNTER2", "hunter2"}}
	g := &graph.Graph{Clusters: []*graph.Cluster{{Kustomizations: map[graph.Ref]*graph.Kustomization{
		{Namespace: "a", Name: "k"}: {Objects: []*graph.Object{sec, cm}},
	}}}}
	got := SecretStrings(g, nil)
	want := []string{"aHVudGVyMg==", "plain-text", "HUNTER2", "hunter2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SecretStrings = %q, want %q", got, want)
	}
}

func unstructuredOf(m map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: m}
}

// A malformed Secret (stringData values that are maps or lists, a scalar stringData, a
// list as data: the API server refuses them) neither crashes the diff's redaction (it
// compared maps with !=) nor shows its values: each field is redacted whole, marked
// changed where the head's differs, and SecretStrings collects every leaf.
func TestMalformedSecretData(t *testing.T) {
	base := unstructuredOf(map[string]any{"kind": "Secret",
		"stringData": map[string]any{"obj": map[string]any{"inner": "n3sted-base"}, "list": []any{"l1st-value"}, "same": map[string]any{"a": "b"}},
		"data":       "Sc4larV4l-base"})
	head := unstructuredOf(map[string]any{"kind": "Secret",
		"stringData": map[string]any{"obj": map[string]any{"inner": "n3sted-head"}, "list": []any{"l1st-value"}, "same": map[string]any{"a": "b"}},
		"data":       []any{"Sc4larV4l-head"}})
	got := redact(head, base, true).Object
	want := map[string]any{"kind": "Secret",
		"stringData": map[string]any{"obj": "<redacted, changed>", "list": "<redacted>", "same": "<redacted>"},
		"data":       "<redacted, changed>"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("redacted head (-want +got):\n%s", d)
	}
	if got := redact(base, head, false).Object["data"]; got != "<redacted>" {
		t.Errorf("redacted base data = %#v, want <redacted>", got)
	}
	sec := &graph.Object{ID: graph.ObjectID{Kind: "Secret", Namespace: "a", Name: "s"}, Body: head}
	g := &graph.Graph{Clusters: []*graph.Cluster{{Kustomizations: map[graph.Ref]*graph.Kustomization{
		{Namespace: "a", Name: "k"}: {Objects: []*graph.Object{sec}},
	}}}}
	if got, want := SecretStrings(g, nil), []string{"Sc4larV4l-head", "n3sted-head", "l1st-value"}; !reflect.DeepEqual(got, want) {
		t.Errorf("SecretStrings = %q, want %q", got, want)
	}
}
