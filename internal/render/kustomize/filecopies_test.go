package kustomize

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestMarkSecretFileCopies: a ConfigMap key holding a Secret value of the build (a
// generator of the Secret's manifest) is marked whole; a plain key, and a key holding a
// word-shaped Secret value, are not.
func TestMarkSecretFileCopies(t *testing.T) {
	obj := func(kind string, body map[string]any) *graph.Object {
		body["apiVersion"], body["kind"] = "v1", kind
		body["metadata"] = map[string]any{"name": "x", "namespace": "d"}
		u := &unstructured.Unstructured{Object: body}
		return &graph.Object{ID: graph.IDOf(u), Body: u}
	}
	file := `{"kind":"Secret","stringData":{"pw":"Pm4narwhal9"}}`
	sec := obj("Secret", map[string]any{"stringData": map[string]any{"pw": "Pm4narwhal9", "w": "monitoring"}})
	cm := obj("ConfigMap", map[string]any{"data": map[string]any{"F": file, "plain": "hello", "w": "monitoring on"}})
	MarkSecretFileCopies([]*graph.Object{sec, cm})
	want := []graph.SecretField{{Path: []string{"data", "F"}, Parts: []graph.TextPart{{Text: file, Secret: true}}}}
	if len(cm.SecretFields) != 1 || cm.SecretFields[0].Path[1] != "F" || cm.SecretFields[0].Parts[0] != want[0].Parts[0] || len(cm.SecretFields[0].Parts) != 1 {
		t.Errorf("SecretFields = %+v, want %+v", cm.SecretFields, want)
	}
	if len(sec.SecretFields) != 0 {
		t.Errorf("the Secret itself got %+v", sec.SecretFields)
	}
}
