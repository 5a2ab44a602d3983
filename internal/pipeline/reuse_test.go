package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestReuseEqualsRebuild reviews every scenario three ways — a full rebuild with
// fluxcd/pkg/kustomize.Build, the default (the head reuses the base's builds), and with a
// cache warmed by the reverse review — and requires the same report from each.
func TestReuseEqualsRebuild(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/scenarios/*")
	shared, _ := filepath.Glob("../../../shared/scenarios/*")
	for _, dir := range append(dirs, shared...) {
		if _, err := os.Stat(filepath.Join(dir, "head")); err != nil {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			base, head := filepath.Join(dir, "base"), filepath.Join(dir, "head")
			want := reviewJSON(t, base, head, Options{NoReuse: true})
			if got := reviewJSON(t, base, head, Options{}); got != want {
				t.Errorf("reuse within the review changes the report:\n%s", cmp.Diff(want, got))
			}
			warm := render.NewCache(0)
			reviewJSON(t, head, base, Options{Cache: warm})
			before := warm.Stats()
			if got := reviewJSON(t, base, head, Options{Cache: warm}); got != want {
				t.Errorf("reuse across reviews changes the report:\n%s", cmp.Diff(want, got))
			}
			if after := warm.Stats(); after.Misses-before.Misses != unseenBuilds[filepath.Base(dir)] {
				t.Errorf("warm review built %d Kustomizations again, want %d", after.Misses-before.Misses, unseenBuilds[filepath.Base(dir)])
			}
		})
	}
}

// unseenBuilds counts, per scenario, the builds of a review that the reverse review does
// not make. failed-parent and failed-parent-substitution: apps keeps its base spec (its
// parent fails at head) while it builds the head files, which neither side of the reverse
// review builds (the head tree alone renders no apps); failed-parent-rejected-children:
// databases and monitoring, the same way. bootstrap-other-cluster-path,
// cluster-folder-partial-rename and flux-instance-other-cluster-path: the root whose path
// moves runs its base spec over the head files at the merge (graph.RunningRoot), a build
// the reverse review does not make.
var unseenBuilds = map[string]int64{"failed-parent": 1, "failed-parent-substitution": 1, "failed-parent-rejected-children": 2,
	"bootstrap-other-cluster-path": 1, "cluster-folder-partial-rename": 1, "flux-instance-other-cluster-path": 1}

// reviewJSON reviews two plain trees and returns the JSON report without its timings.
func reviewJSON(t *testing.T, base, head string, opts Options) string {
	t.Helper()
	b, err := ReadDir(base, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := ReadDir(head, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	b.Rev, h.Rev = "base", "head"
	res, err := Trees(context.Background(), b, h, opts)
	if err != nil {
		t.Fatal(err)
	}
	res.Report.Timings = nil
	data, err := json.MarshalIndent(res.Report, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestCachedBaseIsNotRead: a base whose graph the cache holds (same tree id, same
// options) is not read again, and the review is the same.
func TestCachedBaseIsNotRead(t *testing.T) {
	dir := "../../testdata/scenarios/demo"
	reads := 0
	lazyBase := func() *Tree {
		return &Tree{Rev: "base", id: "tree-base", read: func() (*Tree, error) {
			reads++
			return &Tree{Source: sourceWithID(t, filepath.Join(dir, "base"), "tree-base")}, nil
		}}
	}
	head := &Tree{Source: sourceWithID(t, filepath.Join(dir, "head"), "tree-head"), Rev: "head"}
	review := func(base *Tree, opts Options) string {
		res, err := Trees(context.Background(), base, head, opts)
		if err != nil {
			t.Fatal(err)
		}
		res.Report.Timings = nil
		out, _ := json.Marshal(res.Report)
		return string(out)
	}
	cache := render.NewCache(0)
	first := review(lazyBase(), Options{Cache: cache})
	second := review(lazyBase(), Options{Cache: cache})
	if reads != 1 || second != first {
		t.Errorf("with the base's graph cached: %d reads, want 1; same report: %v", reads, second == first)
	}
	// --cluster selects at head; the base renders every cluster (a renamed one has another
	// name there), with the options of the first review.
	review(lazyBase(), Options{Cache: cache, Clusters: []string{"demo"}})
	if reads != 1 {
		t.Errorf("--cluster: %d reads, want the cached base (1)", reads)
	}
	review(lazyBase(), Options{Cache: cache, Limits: graph.Limits{MaxFileBytes: 1 << 20}})
	review(lazyBase(), Options{NoReuse: true})
	if reads != 3 {
		t.Errorf("other options, and no cache: %d reads in all, want 3", reads)
	}
}

// sourceWithID reads dir as a Source named id, as pipeline.Load names a git tree.
func sourceWithID(t *testing.T, dir, id string) *fsys.Source {
	t.Helper()
	b := fsys.NewSourceBuilder(graph.Limits{})
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, _ := d.Info()
		return b.AddFile(filepath.ToSlash(rel), info.Size(), "", func() ([]byte, error) { return os.ReadFile(p) })
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.Source(id)
}
