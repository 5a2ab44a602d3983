package fluxinstance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestFromHelmRelease: the chart's FluxInstance from a HelmRelease's values over the
// chart's defaults: named flux (fullnameOverride), in targetNamespace, the default
// components when the values list none, and a sync only with instance.sync.url; a
// fullnameOverride set empty names it after the release and the chart.
func TestFromHelmRelease(t *testing.T) {
	hr := func(j string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON([]byte(j)); err != nil {
			t.Fatal(err)
		}
		return u
	}
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "fi-values", "namespace": "ops"},
		"data":     map[string]any{"values.yaml": "instance:\n  distribution:\n    version: 2.9.x\n  components: [source-controller, kustomize-controller]\n"}}}
	objs := []*graph.Object{{ID: graph.IDOf(cm), Body: cm}}
	// valuesFrom reads the HelmRelease's namespace (ops), not targetNamespace.
	got := FromHelmRelease(hr(`{"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":"flux-instance","namespace":"ops"},
		"spec":{"targetNamespace":"flux-system","valuesFrom":[{"kind":"ConfigMap","name":"fi-values"}],
		"values":{"instance":{"sync":{"url":"https://example.invalid/fleet.git","ref":"refs/heads/main","path":"clusters/prod"}}}}}`), objs)
	want := map[string]any{
		"apiVersion": "fluxcd.controlplane.io/v1", "kind": "FluxInstance",
		"metadata": map[string]any{"name": "flux", "namespace": "flux-system"},
		"spec": map[string]any{
			"distribution": map[string]any{"version": "2.9.x", "registry": "ghcr.io/fluxcd", "artifact": "oci://ghcr.io/controlplaneio-fluxcd/flux-operator-manifests:latest"},
			"components":   []any{"source-controller", "kustomize-controller"},
			"sync":         map[string]any{"kind": "GitRepository", "interval": "1m", "url": "https://example.invalid/fleet.git", "ref": "refs/heads/main", "path": "clusters/prod"},
		},
	}
	if d := cmp.Diff(want, got.Object); d != "" {
		t.Errorf("FluxInstance (-want +got):\n%s", d)
	}
	bare := FromHelmRelease(hr(`{"apiVersion":"helm.toolkit.fluxcd.io/v2","kind":"HelmRelease","metadata":{"name":"fi","namespace":"flux-system"},
		"spec":{"values":{"fullnameOverride":"","instance":{"sync":{"path":"clusters/prod"}}}}}`), nil)
	if bare.GetName() != "fi-flux-instance" || bare.GetNamespace() != "flux-system" {
		t.Errorf("name %s/%s, want flux-system/fi-flux-instance", bare.GetNamespace(), bare.GetName())
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(bare.Object, "spec", "sync"); found {
		t.Errorf("sync without url rendered: %v", bare.Object["spec"])
	}
	comps, _, _ := unstructured.NestedSlice(bare.Object, "spec", "components")
	if d := cmp.Diff([]any{"source-controller", "kustomize-controller", "helm-controller", "notification-controller"}, comps); d != "" {
		t.Errorf("default components (-want +got):\n%s", d)
	}
}
