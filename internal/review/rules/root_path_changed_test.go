package rules

import (
	"context"
	"os"
	"path/filepath"
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
		"(ConfigMap/default/reports, FluxInstance.fluxcd.controlplane.io/flux-system/flux), the FluxInstance flux-system/flux that defines the cluster among them (deleting it makes flux-operator uninstall the Flux controllers it installed)."
	if len(got) != 1 || got[0].Cluster != "production" || got[0].File != "clusters/production/flux-system/flux-instance.yaml" || got[0].Line != 14 || got[0].Severity != Error || got[0].Message != want {
		t.Fatalf("findings %+v\nwant one error for production at flux-instance.yaml:14:\n%s", got, want)
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
	checkFolderRename(t, scenarioPairs(t, "cluster-folder-rename"))
}

// checkFolderRename: the renamed folder of production (clusters/prod → clusters/production,
// the old folder gone) is one error at the new gotk-sync.yaml's path line; staging (root
// unchanged) is not reported.
func checkFolderRename(t *testing.T, pairs []graph.ClusterPair) {
	t.Helper()
	var got []Finding
	for _, p := range pairs {
		if p.Base != nil && p.Head != nil {
			got = append(got, rootPathChanged(p.Base, p.Head, nil)...)
		}
	}
	msg := "The root of cluster production (flux-system/flux-system, defined at clusters/production/flux-system/gotk-sync.yaml) moves from clusters/prod to clusters/production, and this commit has no folder clusters/prod. " +
		"The root object in the cluster keeps the old path until its edited manifest is applied, and only a build of clusters/production applies it: " +
		"from the merge on kustomize-controller fails the root with 'kustomization path not found: ./clusters/prod' before applying anything, " +
		"so cluster production stays at its last applied revision, and no later change reaches it, until the new root is applied by hand."
	fix := "Keep clusters/prod for one merge with a kustomization.yaml of `resources: [../production]` (clusters/production then needs a kustomization.yaml listing its files): " +
		"the running root builds the same objects and applies the moved root; remove clusters/prod in a later change. " +
		"Or, right after the merge, apply clusters/production/flux-system/gotk-sync.yaml by hand (kubectl apply -f clusters/production/flux-system/gotk-sync.yaml) or run flux bootstrap again with --path=clusters/production."
	if len(got) != 1 || got[0].Rule != "root-path-changed" || got[0].Severity != Error || got[0].Cluster != "production" ||
		got[0].File != "clusters/production/flux-system/gotk-sync.yaml" || got[0].Line != 19 || got[0].Message != msg {
		t.Fatalf("findings %s\nwant one error for production at clusters/production/flux-system/gotk-sync.yaml:19:\n%s", dump(got), msg)
	}
	if got[0].Suggestion != fix {
		t.Errorf("suggestion:\n%s\nwant:\n%s", got[0].Suggestion, fix)
	}
}

// TestRootFolderKept: the renamed folder is not reported while the old folder stays, with a
// kustomization.yaml naming the new one (the running root still builds and applies the moved
// root), nor a cluster new at head.
func TestRootFolderKept(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../../testdata/scenarios/cluster-folder-rename/head")); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"clusters/prod/kustomization.yaml":       "resources: [../production]\n",
		"clusters/production/kustomization.yaml": "resources: [apps.yaml, flux-system/gotk-sync.yaml]\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base, err := render.Render(context.Background(), "../../../testdata/scenarios/cluster-folder-rename/base", render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	head, err := render.Render(context.Background(), dir, render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	paired := 0
	for _, p := range graph.MatchClusters(base, head) {
		if p.Base != nil && p.Head != nil && p.Base.RootDir != p.Head.RootDir {
			paired++
		}
		if f := rootPathChanged(p.Base, p.Head, nil); len(f) != 0 {
			t.Errorf("cluster %s reported: %s", p.Head.Name, dump(f))
		}
	}
	if paired != 1 {
		t.Fatalf("%d moved clusters paired, want 1 (production)", paired)
	}
	for _, c := range head.Clusters {
		if f := rootPathChanged(nil, c, nil); len(f) != 0 {
			t.Errorf("new cluster %s reported: %s", c.Name, dump(f))
		}
	}
}
