package rules

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// renameVariant renders cluster-folder-rename's base, and its head with edit applied
// (files to write, "" to delete; "copy:" + a base folder replaces it with that folder, in
// the order of the paths), over the base
// as the prior graph, and pairs the clusters.
func renameVariant(t *testing.T, edit map[string]string) ([]graph.ClusterPair, *graph.Graph) {
	t.Helper()
	const src = "../../../testdata/scenarios/cluster-folder-rename/"
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src+"head")); err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(edit)) {
		data, p := edit[name], filepath.Join(dir, name)
		switch {
		case data == "":
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			continue
		case strings.HasPrefix(data, "copy:"):
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			if err := os.CopyFS(p, os.DirFS(src+"base/"+data[5:])); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base, err := render.Render(context.Background(), src+"base", render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	head, err := render.Render(context.Background(), dir, render.Options{Prior: base})
	if err != nil {
		t.Fatal(err)
	}
	return graph.MatchClusters(base, head), head
}

// rootFindings runs root-path-changed over the pairs of both sides.
func rootFindings(pairs []graph.ClusterPair) []Finding {
	var got []Finding
	for _, p := range pairs {
		if p.Base != nil && p.Head != nil {
			got = append(got, rootPathChanged(p.Base, p.Head, nil)...)
		}
	}
	return got
}

// TestRootStaysFluxSystemMoved: only clusters/prod/flux-system moves to clusters/production
// (apps.yaml stays in clusters/prod): the running root builds clusters/prod, which no
// longer holds its manifest, keeps that path for good and prunes its own GitRepository and
// Kustomization. One error at the new gotk-sync.yaml's path line; staging is silent.
func TestRootStaysFluxSystemMoved(t *testing.T) {
	base, _ := os.ReadFile("../../../testdata/scenarios/cluster-folder-rename/base/clusters/prod/apps.yaml")
	pairs, _ := renameVariant(t, map[string]string{"clusters/production/apps.yaml": "", "clusters/prod/apps.yaml": string(base)})
	got := rootFindings(pairs)
	msg := "The root of cluster production (flux-system/flux-system, defined at clusters/production/flux-system/gotk-sync.yaml) moves from clusters/prod to clusters/production. " +
		"The root object in the cluster keeps path ./clusters/prod until a build applies its edited manifest, so at the merge kustomize-controller builds clusters/prod of this commit, " +
		"which no longer holds the root's manifest (now clusters/production/flux-system/gotk-sync.yaml): the root keeps path ./clusters/prod for good, applies only what clusters/prod still builds, " +
		"and no change under clusters/production reaches cluster production; its garbage collection deletes 2 objects it applied at base that this build lacks " +
		"(GitRepository.source.toolkit.fluxcd.io/flux-system/flux-system, Kustomization.kustomize.toolkit.fluxcd.io/flux-system/flux-system), " +
		"the root Kustomization flux-system/flux-system itself among them: its finalizer then prunes everything in its inventory."
	if len(got) != 1 || got[0].Rule != "root-path-changed" || got[0].Severity != Error || got[0].Cluster != "production" ||
		got[0].File != "clusters/production/flux-system/gotk-sync.yaml" || got[0].Line != 19 || got[0].Message != msg {
		t.Fatalf("findings %s\nwant one error at clusters/production/flux-system/gotk-sync.yaml:19:\n%s", dump(got), msg)
	}
	fix := "Make clusters/prod build the moved root for one merge: a kustomization.yaml in clusters/prod of `resources: [../production]` (the running root then applies the new path), and remove clusters/prod in a later change; " +
		"or, right after the merge, apply clusters/production/flux-system/gotk-sync.yaml by hand (kubectl apply -f clusters/production/flux-system/gotk-sync.yaml)."
	if got[0].Suggestion != fix {
		t.Errorf("suggestion:\n%s\nwant:\n%s", got[0].Suggestion, fix)
	}
}

// TestRootStaysNegatives: the old folder building the moved root (kustomization.yaml of
// resources: [../production]) is the transition, with every object the root applied:
// nothing; nor for a head rendered without a prior (no RunningRoot).
func TestRootStaysNegatives(t *testing.T) {
	pairs, head := renameVariant(t, map[string]string{
		"clusters/prod/kustomization.yaml":       "resources: [../production]\n",
		"clusters/production/kustomization.yaml": "resources: [apps.yaml, flux-system/gotk-sync.yaml]\n",
	})
	if got := rootFindings(pairs); len(got) != 0 {
		t.Errorf("kept old folder: %s", dump(got))
	}
	moved := 0
	for _, c := range head.Clusters {
		if c.Running != nil {
			moved++
			if !c.Running.Holds || c.Running.NextDir != "clusters/production" || c.Running.Dir != "clusters/prod" {
				t.Errorf("running root of %s: %+v", c.Name, *c.Running)
			}
		}
	}
	if moved != 1 {
		t.Errorf("%d clusters with a running root, want 1", moved)
	}
	for _, p := range scenarioPairs(t, "cluster-folder-rename") {
		if p.Head != nil && p.Head.Running != nil {
			t.Errorf("%s: running root without a prior: %+v", p.Head.Name, *p.Head.Running)
		}
	}
}

// TestRootStaysCopyKept: the folder is renamed whole (clusters/production has the moved
// root) and a copy of apps.yaml is left in clusters/prod: the running root builds what
// remains, which lacks its manifest, so it keeps ./clusters/prod; the same error as when
// only flux-system/ moves.
func TestRootStaysCopyKept(t *testing.T) {
	apps, _ := os.ReadFile("../../../testdata/scenarios/cluster-folder-rename/base/clusters/prod/apps.yaml")
	got := rootFindings(must(renameVariant(t, map[string]string{"clusters/prod/apps.yaml": string(apps)})))
	if len(got) != 1 || got[0].Severity != Error || got[0].Line != 19 ||
		!strings.Contains(got[0].Message, "which no longer holds the root's manifest (now clusters/production/flux-system/gotk-sync.yaml): the root keeps path ./clusters/prod for good") ||
		!strings.Contains(got[0].Message, "deletes 2 objects it applied at base that this build lacks (GitRepository.source.toolkit.fluxcd.io/flux-system/flux-system, Kustomization.kustomize.toolkit.fluxcd.io/flux-system/flux-system)") {
		t.Fatalf("findings %s", dump(got))
	}
}

// TestRootFlipsToCopy: clusters/production is a copy of clusters/prod (its gotk-sync.yaml
// still says ./clusters/prod) and the root in clusters/prod now says ./clusters/production:
// the two manifests of the root alternate its path on every reconcile. One error at the
// copy's path line.
func TestRootFlipsToCopy(t *testing.T) {
	sync, err := os.ReadFile("../../../testdata/scenarios/cluster-folder-rename/base/clusters/prod/flux-system/gotk-sync.yaml")
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.Replace(string(sync), "path: ./clusters/prod", "path: ./clusters/production", 1)
	got := rootFindings(must(renameVariant(t, map[string]string{"clusters/prod": "copy:clusters/prod", "clusters/prod/flux-system/gotk-sync.yaml": moved, "clusters/production": "copy:clusters/prod"})))
	msg := "The root of cluster production (flux-system/flux-system, defined at clusters/prod/flux-system/gotk-sync.yaml) now applies clusters/production, whose build holds another manifest of the root, " +
		"clusters/production/flux-system/gotk-sync.yaml:13, with path clusters/prod: kustomize-controller applies the root's own object with each build, so from the merge on every reconcile writes the other path into the root, " +
		"which then builds clusters/prod and sets it back to clusters/production; the root's path flips on every reconcile, and each one's garbage collection deletes what only the other folder builds."
	if len(got) != 1 || got[0].Rule != "root-path-changed" || got[0].Severity != Error || got[0].Cluster != "production" ||
		got[0].File != "clusters/production/flux-system/gotk-sync.yaml" || got[0].Line != 19 || got[0].Message != msg {
		t.Fatalf("findings %s\nwant:\n%s", dump(got), msg)
	}
	fix := "Keep one manifest of Kustomization flux-system/flux-system per cluster: delete clusters/production/flux-system/gotk-sync.yaml:13, or set its path to clusters/production."
	if got[0].Suggestion != fix {
		t.Errorf("suggestion %q", got[0].Suggestion)
	}
	// The copy's root set to the new path too: one manifest per path, the transition: nothing.
	copied := strings.Replace(string(sync), "path: ./clusters/prod", "path: ./clusters/production", 1)
	if got := rootFindings(must(renameVariant(t, map[string]string{"clusters/prod": "copy:clusters/prod", "clusters/prod/flux-system/gotk-sync.yaml": moved,
		"clusters/production": "copy:clusters/prod", "clusters/production/flux-system/gotk-sync.yaml": copied}))); len(got) != 0 {
		t.Errorf("consistent copy: %s", dump(got))
	}
}

// must drops renameVariant's head graph.
func must(pairs []graph.ClusterPair, _ *graph.Graph) []graph.ClusterPair { return pairs }

// TestRootStaysTransient: the old folder builds the moved root but not apps.yaml: the
// transition happens, and the first reconcile's garbage collection deletes the
// Kustomization apps that the next one, from clusters/production, creates again: a warning.
func TestRootStaysTransient(t *testing.T) {
	got := rootFindings(must(renameVariant(t, map[string]string{
		"clusters/prod/kustomization.yaml": "resources: [../production/flux-system/gotk-sync.yaml]\n",
	})))
	msg := "The root of cluster production (flux-system/flux-system, defined at clusters/production/flux-system/gotk-sync.yaml) moves from clusters/prod to clusters/production. " +
		"The root object in the cluster keeps path ./clusters/prod until a build applies its edited manifest, so at the merge kustomize-controller builds clusters/prod of this commit, " +
		"which applies the moved root (clusters/production/flux-system/gotk-sync.yaml:13) but lacks 1 object that the root applied at base (Kustomization.kustomize.toolkit.fluxcd.io/flux-system/apps): " +
		"its garbage collection deletes it, and the next reconcile, from clusters/production, creates it again."
	if len(got) != 1 || got[0].Severity != Warning || got[0].Line != 19 || got[0].Message != msg {
		t.Fatalf("findings %s\nwant one warning:\n%s", dump(got), msg)
	}
}
