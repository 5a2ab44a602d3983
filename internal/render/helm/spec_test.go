package helm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestSpecDefaults: with no spec at all, the controller's defaults still apply.
func TestSpecDefaults(t *testing.T) {
	s, err := specOf(&unstructured.Unstructured{Object: map[string]any{"kind": "HelmRelease"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{crdsCreate, "combined"}, []string{s.Install.CRDs, s.PostRenderStrategy}); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}
