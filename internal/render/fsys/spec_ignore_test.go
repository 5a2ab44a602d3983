package fsys

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
	"github.com/tiergate/tiergate/internal/render/rendertest"
)

const gitRepos = `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec:
  ignore: |
    *.test.yaml
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: other}
spec:
  ignore: drafts/
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: plain, namespace: flux-system}
spec:
  url: https://example.invalid/plain.git
`

// TestSpecIgnore: the spec.ignore of the GitRepositories among the sources, in file
// order; a document without a namespace is in flux-system; other kinds and other
// GitRepositories do not count.
func TestSpecIgnore(t *testing.T) {
	ix := index.New(rendertest.Snapshot(map[string]string{"clusters/repos.yaml": gitRepos, "clusters/x.yaml": "kind: ConfigMap\n"}), nil)
	repo := func(name string) graph.SourceRef {
		return graph.SourceRef{Kind: "GitRepository", Namespace: "flux-system", Name: name}
	}
	for _, tc := range []struct {
		name    string
		sources []graph.SourceRef
		want    string
	}{
		{"root source", []graph.SourceRef{repo("flux-system")}, "*.test.yaml\n"},
		{"two sources", []graph.SourceRef{repo("other"), repo("flux-system")}, "*.test.yaml\n\ndrafts/"},
		{"no spec.ignore", []graph.SourceRef{repo("plain")}, ""},
		{"not a GitRepository", []graph.SourceRef{{Kind: "OCIRepository", Namespace: "flux-system", Name: "flux-system"}}, ""},
		{"none", nil, ""},
	} {
		if got := SpecIgnore(ix, tc.sources); got != tc.want {
			t.Errorf("%s: SpecIgnore = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestIgnoredKeepsVerdicts: a VerdictStore changes nothing of what is left out; it is
// asked once per set of patterns, and an empty store is filled.
func TestIgnoredKeepsVerdicts(t *testing.T) {
	snap := rendertest.Snapshot(map[string]string{"apps/a.yaml": "a", "apps/b.test.yaml": "b", "img/logo.png": "p"})
	files := func(s *graph.Snapshot) []string {
		var out []string
		for _, rel := range []string{"apps/a.yaml", "apps/b.test.yaml", "img/logo.png"} {
			if s.State(rel) == "file" {
				out = append(out, rel)
			}
		}
		return out
	}
	kept := map[string]*Verdicts{}
	var asked int
	store := func(sum string, paths int) *Verdicts {
		asked++
		if kept[sum] == nil {
			kept[sum] = NewVerdicts(paths)
		}
		return kept[sum]
	}
	for _, tc := range []struct {
		extra string
		want  []string
	}{{"", []string{"apps/a.yaml", "apps/b.test.yaml"}}, {"*.test.yaml\n", []string{"apps/a.yaml", "img/logo.png"}}} {
		want := files(Ignored(snap, tc.extra, nil))
		if d := cmp.Diff(tc.want, want); d != "" {
			t.Errorf("extra %q: kept (-want +got):\n%s", tc.extra, d)
		}
		for range 2 {
			if d := cmp.Diff(want, files(Ignored(snap, tc.extra, store))); d != "" {
				t.Errorf("extra %q with a store: kept (-without +with):\n%s", tc.extra, d)
			}
		}
	}
	if asked != 4 || len(kept) != 2 {
		t.Errorf("store asked %d times for %d pattern sets, want 4 for 2", asked, len(kept))
	}
	for sum, v := range kept {
		if len(v.m) == 0 {
			t.Errorf("verdicts of %s: none kept", sum)
		}
	}
}

// TestStoredVerdicts: Verdicts read back from a store give what matching gives, save is
// called with every verdict after an Ignored that added some and not after one that added
// none, and a stored verdict is taken as it is (the store's key names the patterns).
func TestStoredVerdicts(t *testing.T) {
	snap := rendertest.Snapshot(map[string]string{"apps/a.yaml": "a", "img/logo.png": "p", ".github/ci.yaml": "c"})
	var saved []map[string]bool
	var v *Verdicts
	store := func(sum string, paths int) *Verdicts {
		if v == nil {
			v = NewStoredVerdicts(nil, paths, func(all map[string]bool) { saved = append(saved, all) })
		}
		return v
	}
	want := Ignored(snap, "", nil)
	Ignored(snap, "", store)
	Ignored(snap, "", store) // every verdict known: nothing to save
	if len(saved) != 1 {
		t.Fatalf("saved %d times, want 1", len(saved))
	}
	wantSaved := map[string]bool{"apps/": false, "apps/a.yaml": false, "img/": false, "img/logo.png": true, ".github/": true, ".github/ci.yaml": true}
	if d := cmp.Diff(wantSaved, saved[0]); d != "" {
		t.Errorf("saved (-want +got):\n%s", d)
	}
	again := NewStoredVerdicts(saved[0], 0, func(map[string]bool) { t.Error("saved with no verdict added") })
	got := Ignored(snap, "", func(string, int) *Verdicts { return again })
	if d := cmp.Diff(want.Types, got.Types); d != "" {
		t.Errorf("from stored verdicts (-matched +stored):\n%s", d)
	}
	// What is saved is the verdicts on the paths asked about: a stored path of an older tree
	// is left out once a verdict is added.
	var resaved map[string]bool
	old := map[string]bool{"gone/old.yaml": false, "apps/": false, "apps/a.yaml": false}
	mixed := NewStoredVerdicts(old, 0, func(all map[string]bool) { resaved = all })
	Ignored(snap, "", func(string, int) *Verdicts { return mixed })
	if d := cmp.Diff(wantSaved, resaved); d != "" {
		t.Errorf("saved over older verdicts (-want +got):\n%s", d)
	}
	// A stored verdict is used as it is: this one keeps the png.
	forged := NewStoredVerdicts(map[string]bool{"img/logo.png": false}, 0, nil)
	if Ignored(snap, "", func(string, int) *Verdicts { return forged }).State("img/logo.png") != "file" {
		t.Error("a stored verdict was not used")
	}
}

// BenchmarkIgnored is Ignored over a tree shaped like the corpus's (1,200 files in
// kubernetes/apps/base/<ns>/<app>/app, the default patterns, one image to leave out):
// matching every path, and with the verdicts read back from a store (a warm review).
func BenchmarkIgnored(b *testing.B) {
	files := map[string]string{"docs/logo.png": "p", ".github/workflows/ci.yaml": "c"}
	for ns := range 20 {
		for app := range 20 {
			dir := fmt.Sprintf("kubernetes/apps/base/ns%d/app%d", ns, app)
			files[dir+"/ks.yaml"] = "k"
			files[dir+"/app/helmrelease.yaml"] = "h"
			files[dir+"/app/kustomization.yaml"] = "k"
		}
	}
	snap := rendertest.Snapshot(files)
	b.Run("match", func(b *testing.B) {
		for b.Loop() {
			Ignored(snap, "", func(string, int) *Verdicts { return NewVerdicts(len(snap.Types)) })
		}
	})
	var stored map[string]bool
	Ignored(snap, "", func(_ string, n int) *Verdicts {
		return NewStoredVerdicts(nil, n, func(all map[string]bool) { stored = all })
	})
	b.Run("stored", func(b *testing.B) {
		for b.Loop() {
			Ignored(snap, "", func(string, int) *Verdicts { return NewStoredVerdicts(stored, 0, nil) })
		}
	})
}
