package fluxinstance

import (
	"encoding/base64"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

func TestHelmValues(t *testing.T) {
	obj := func(y string) *graph.Object {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON([]byte(y)); err != nil {
			t.Fatal(err)
		}
		return &graph.Object{ID: graph.IDOf(u), Body: u}
	}
	hr := obj(`{"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":"fi","namespace":"flux-system"},
		"spec":{"valuesFrom":[
			{"kind":"ConfigMap","name":"one"},
			{"kind":"Secret","name":"two","valuesKey":"extra.yaml"},
			{"kind":"ConfigMap","name":"missing","optional":true},
			{"kind":"ConfigMap","name":"one","valuesKey":"name","targetPath":"instance.sync.name"}],
		"values":{"instance":{"sync":{"ref":"refs/heads/main","name":"inline"}}}}}`).Body
	objs := []*graph.Object{
		obj(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"one","namespace":"flux-system"},
			"data":{"values.yaml":"instance:\n  sync:\n    path: a\n    url: https://one\n","name":"\"from-path\""}}`),
		obj(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"two"},"data":{"extra.yaml":"` +
			base64.StdEncoding.EncodeToString([]byte("instance:\n  sync:\n    path: b\n")) + `"}}`),
		obj(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"one","namespace":"elsewhere"},"data":{"values.yaml":"x: 1"}}`),
	}
	got := HelmValues(hr, objs, map[string]any{"instance": map[string]any{"sync": map[string]any{"interval": "1m", "kind": "GitRepository", "url": "", "ref": "", "path": "", "name": ""}}})
	// ChartValuesFromReferences: references in order, a targetPath over the inline values
	// merged so far, inline values last; the chart's defaults under all.
	want := map[string]any{"instance": map[string]any{"sync": map[string]any{
		"interval": "1m", "kind": "GitRepository", "url": "https://one", "ref": "refs/heads/main", "path": "b", "name": "inline",
	}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("values (-want +got):\n%s", d)
	}
}
