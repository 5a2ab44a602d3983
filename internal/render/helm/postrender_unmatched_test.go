package helm

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRenderUnmatchedPatches: a targeted postRenderers patch that selects nothing is
// recorded (kustomize applies it to nothing without an error); one that selects an object
// is not. Under separate, a patch that selects a hook only is matched too.
func TestRenderUnmatchedPatches(t *testing.T) {
	const spec = `  postRenderers:
  - kustomize:
      patches:
      - target: {kind: Service, name: web-app}
        patch: '[{"op": "add", "path": "/metadata/annotations", "value": {"a": "b"}}]'
      - target: {kind: Service, name: web}
        patch: '[{"op": "add", "path": "/metadata/annotations", "value": {"a": "b"}}]'
  - kustomize:
      patches:
      - target: {kind: Job, labelSelector: "team=none"}
        patch: '[{"op": "add", "path": "/metadata/annotations", "value": {"a": "b"}}]'
      - target: {kind: Job}
        patch: '[{"op": "add", "path": "/metadata/annotations", "value": {"a": "b"}}]'
`
	noSub := map[string]any{"sub": map[string]any{"enabled": false}}
	want := []UnmatchedPatch{{Renderer: 0, Patch: 1, Target: "kind=Service,name=web"}, {Renderer: 1, Patch: 0, Target: "kind=Job,labelSelector=team=none"}}
	for _, strategy := range []string{"", "  postRenderStrategy: separate\n"} {
		res, err := Render(context.Background(), Request{Chart: loadChart(t, appChart()), HelmRelease: hrObj(t, spec+strategy), Values: noSub})
		if err != nil {
			t.Fatalf("Render %q: %v", strategy, err)
		}
		if d := cmp.Diff(want, res.UnmatchedPatches); d != "" {
			t.Errorf("strategy %q: (-want +got):\n%s", strategy, d)
		}
	}
}
