package helm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// hrFrom parses a HelmRelease written in YAML.
func hrFrom(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	obj := map[string]any{}
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
		t.Fatalf("parse HelmRelease: %v", err)
	}
	return &unstructured.Unstructured{Object: obj}
}

// TestShortenName uses helm-controller's own vectors (internal/release/name_test.go).
func TestShortenName(t *testing.T) {
	for name, want := range map[string]string{
		"release-name": "release-name",
		"release-name-with-very-long-name-which-is-longer-than-53-characters":         "release-name-with-very-long-name-which-i-788ca0d0d7b0",
		"another-release-name-with-very-long-name-which-is-longer-than-53-characters": "another-release-name-with-very-long-name-7e72150d5a36",
		"": "",
		"a-namespace-name-that-is-long-an-app-with-a-name-long-enough": "a-namespace-name-that-is-long-an-app-wit-a95f3865db8a",
		// Exactly 53 characters stays as is.
		"abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghi": "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghi",
	} {
		if got := ShortenName(name); got != want {
			t.Errorf("ShortenName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestReleaseOf(t *testing.T) {
	const head = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: podinfo\n  namespace: flux-system\n"
	for _, tc := range []struct {
		name, spec string
		want       Release
	}{
		{"defaults", "spec: {}\n", Release{"podinfo", "flux-system", "flux-system"}},
		{"targetNamespace prefixes the name", "spec:\n  targetNamespace: apps\n", Release{"apps-podinfo", "apps", "flux-system"}},
		{"releaseName wins over the prefix", "spec:\n  releaseName: web\n  targetNamespace: apps\n  storageNamespace: helm\n", Release{"web", "apps", "helm"}},
		{"long composed name is shortened",
			"spec:\n  targetNamespace: release-name-with-very-long-name-which-is-longer-than-53\n",
			Release{"release-name-with-very-long-name-which-i-d38b5e55107a",
				"release-name-with-very-long-name-which-is-longer-than-53", "flux-system"}},
		{"long releaseName is shortened",
			"spec:\n  releaseName: release-name-with-very-long-name-which-is-longer-than-53-characters\n",
			Release{"release-name-with-very-long-name-which-i-788ca0d0d7b0", "flux-system", "flux-system"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ReleaseOf(hrFrom(t, head+tc.spec))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ReleaseOf (-want +got):\n%s", diff)
			}
		})
	}
}
