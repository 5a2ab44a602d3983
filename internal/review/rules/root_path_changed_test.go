package rules

import (
	"context"
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// scenarioPairs renders a scenario's base and head and pairs their clusters by identity.
func scenarioPairs(t *testing.T, name string) []graph.ClusterPair {
	t.Helper()
	var gs [2]*graph.Graph
	for i, side := range []string{"base", "head"} {
		g, err := render.Render(context.Background(), "../../../testdata/scenarios/"+name+"/"+side, render.Options{})
		if err != nil {
			t.Fatal(err)
		}
		gs[i] = g
	}
	return graph.MatchClusters(gs[0], gs[1])
}

// TestRootPathChanged: a FluxInstance whose sync.path becomes staging's folder is reported
// once, for production, at the sync.path line, with what the merge deletes; a renamed
// cluster folder (the root and its definition move together) and staging itself are not.
func TestRootPathChanged(t *testing.T) {
	var got []Finding
	for _, p := range scenarioPairs(t, "flux-instance-other-cluster-path") {
		if p.Base == nil || p.Head == nil {
			t.Fatalf("cluster %+v unpaired", p)
		}
		got = append(got, rootPathChanged(p.Base, p.Head, nil)...)
	}
	want := "The root of cluster production (flux-system/flux-system, defined at clusters/production/flux-system/flux-instance.yaml) now applies clusters/staging instead of clusters/production; " +
		"that folder holds another cluster's root (Kustomization flux-system/flux-system at clusters/staging/flux-system/gotk-sync.yaml:13). " +
		"Cluster production keeps its identity and from the merge on reconciles that folder's graph (its Kustomizations, variables and flux-system objects, shown here as production's head), " +
		"and the root's garbage collection deletes 2 objects it applied from clusters/production that the new folder does not " +
		"(ConfigMap/default/reports, FluxInstance.fluxcd.controlplane.io/flux-system/flux), the FluxInstance flux-system/flux that defines the cluster among them."
	if len(got) != 1 || got[0].Cluster != "production" || got[0].File != "clusters/production/flux-system/flux-instance.yaml" || got[0].Line != 14 || got[0].Severity != Warning || got[0].Message != want {
		t.Fatalf("findings %+v\nwant one warning for production at flux-instance.yaml:14:\n%s", got, want)
	}
	// The bootstrap variant: staging's gotk-sync.yaml now applies production's folder.
	var boot []Finding
	for _, p := range scenarioPairs(t, "bootstrap-other-cluster-path") {
		boot = append(boot, rootPathChanged(p.Base, p.Head, nil)...)
	}
	if len(boot) != 1 || boot[0].Cluster != "staging" || boot[0].Line != 19 ||
		!strings.Contains(boot[0].Message, "that folder holds another cluster's root (FluxInstance flux-system/flux at clusters/production/flux-system/flux-instance.yaml:2)") {
		t.Errorf("bootstrap variant: %+v", boot)
	}
	for _, p := range scenarioPairs(t, "cluster-folder-rename") {
		if p.Base != nil && p.Head != nil {
			if f := rootPathChanged(p.Base, p.Head, nil); len(f) != 0 {
				t.Errorf("renamed folder of %s reported: %+v", p.Head.Name, f)
			}
		}
	}
}
