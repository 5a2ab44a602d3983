package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// dependsOnPath walks spec.dependsOn; it must not write into it. A dependsOn slice with
// spare capacity (as YAML decoding leaves it) was overwritten by the walk's stack, so the
// graph in the PR comment and later rules saw apps -> infra instead of apps -> mid.
func TestDependsOnPathLeavesSpecAlone(t *testing.T) {
	c := renderTree(t, map[string]string{
		tierFile("apps"):  tier("apps", "./apps", true, dependsOn("mid")...),
		tierFile("mid"):   tier("mid", "./mid", true, dependsOn("infra")...),
		tierFile("infra"): tier("infra", "./infra", true),
	})
	ref := func(name string) graph.Ref { return graph.Ref{Namespace: "flux-system", Name: name} }
	apps := c.Kustomizations[ref("apps")]
	apps.Spec.DependsOn = append(make([]graph.Ref, 0, 4), apps.Spec.DependsOn...)
	v := newView(c)
	if !v.dependsOnPath(ref("apps"), ref("infra")) {
		t.Fatal("apps has no dependsOn path to infra")
	}
	if d := cmp.Diff([]graph.Ref{ref("mid")}, apps.Spec.DependsOn); d != "" {
		t.Errorf("apps spec.dependsOn after the walk (-want +got):\n%s", d)
	}
}
