package fsys

import (
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
