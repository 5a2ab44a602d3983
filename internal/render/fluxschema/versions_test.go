package fluxschema

import (
	"slices"
	"testing"
)

// TestServedVersions: the versions the Flux CRDs serve per release, and what tiergate
// accepts (Flux 2.7's: v1beta2 still, v1beta1 no longer; unknown kinds always).
func TestServedVersions(t *testing.T) {
	for _, tc := range []struct {
		group, kind string
		minor       int
		want        []string
	}{
		{"kustomize.toolkit.fluxcd.io", "Kustomization", -1, []string{"v1"}},
		{"kustomize.toolkit.fluxcd.io", "Kustomization", 8, []string{"v1"}},
		{"kustomize.toolkit.fluxcd.io", "Kustomization", 7, []string{"v1", "v1beta2"}},
		{"kustomize.toolkit.fluxcd.io", "Kustomization", 6, []string{"v1", "v1beta2", "v1beta1"}},
		{"helm.toolkit.fluxcd.io", "HelmRelease", 7, []string{"v2", "v2beta2"}},
		{"source.toolkit.fluxcd.io", "OCIRepository", 6, []string{"v1", "v1beta2"}},
		{"source.extensions.fluxcd.io", "ArtifactGenerator", -1, []string{"v1beta1"}},
		{"example.com", "Widget", -1, nil},
	} {
		if got := ServedBy(tc.group, tc.kind, tc.minor); !slices.Equal(got, tc.want) {
			t.Errorf("ServedBy(%s/%s, %d) = %v, want %v", tc.group, tc.kind, tc.minor, got, tc.want)
		}
	}
	for _, tc := range []struct {
		apiVersion, kind string
		want             bool
	}{
		{"kustomize.toolkit.fluxcd.io/v1", "Kustomization", true},
		{"kustomize.toolkit.fluxcd.io/v1beta2", "Kustomization", true},
		{"kustomize.toolkit.fluxcd.io/v1beta1", "Kustomization", false},
		{"kustomize.toolkit.fluxcd.io/g", "Kustomization", false},
		{"helm.toolkit.fluxcd.io/v2beta1", "HelmRelease", false},
		{"fluxcd.controlplane.io/v2", "FluxInstance", false},
		{"example.com/v9", "Widget", true},
		{"kustomize.config.k8s.io/v1beta1", "Kustomization", true},
	} {
		if got := Accepted(tc.apiVersion, tc.kind); got != tc.want {
			t.Errorf("Accepted(%s, %s) = %v, want %v", tc.apiVersion, tc.kind, got, tc.want)
		}
	}
	if got, want := History("kustomize.toolkit.fluxcd.io", "Kustomization"), "v1 (v1beta2 until Flux 2.7, v1beta1 until Flux 2.6)"; got != want {
		t.Errorf("History = %q, want %q", got, want)
	}
}
