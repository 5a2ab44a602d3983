package render

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestStoredGraphLoadsInRepoCharts stores the graph of a tree whose HelmRelease renders
// an in-repo chart and reads it back: the releases keep their values with their Go
// types, and the cluster's HelmCharts are loaded from the tree again with the same
// digest and chart. A stored digest the tree does not give, or a chart source that
// is not in the tree, makes the whole graph a miss.
func TestStoredGraphLoadsInRepoCharts(t *testing.T) {
	src, err := fsys.ReadSource("../../testdata/scenarios/helm-in-repo/head", graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	src.ID = "tree-1"
	store := mapStore{}
	c := NewCache(0)
	c.Persist(store)
	opts := Options{Cache: c}
	g, err := RenderSource(context.Background(), src, opts)
	if err != nil {
		t.Fatal(err)
	}
	key := priorKey(graphKey(src.ID, opts), nil) // an in-repo chart: kept under its prior (none)
	data, ok := store[graphOnDisk(g.Key)]
	if g.Key != key || !ok {
		t.Fatalf("graph not stored under %q (kept as %q)", key, g.Key)
	}
	want := g.Clusters[0]
	if len(want.HelmCharts) == 0 {
		t.Fatal("fixture renders no in-repo chart")
	}
	got, ok := c.loadGraph(key, src, opts)
	if !ok {
		t.Fatal("stored graph not read back")
	}
	gc := got.Clusters[0]
	for ref, ks := range want.Kustomizations {
		if diff := cmp.Diff(ks.Releases, gc.Kustomizations[ref].Releases); diff != "" {
			t.Errorf("%s releases (-rendered +stored):\n%s", ref.Name, diff)
		}
	}
	// reflect: a chart.Chart holds unexported links to its parent and dependencies.
	if !reflect.DeepEqual(want.HelmCharts, gc.HelmCharts) {
		t.Errorf("HelmCharts differ:\nrendered %+v\nstored   %+v", want.HelmCharts, gc.HelmCharts)
	}
	for _, bad := range []struct{ name, from, to string }{
		{"digest", `"Digest":"repo:`, `"Digest":"repo:0`},
		{"chart folder", `"InRepo":true,"Dir":"`, `"InRepo":true,"Dir":"gone/`},
	} {
		if !strings.Contains(string(data), bad.from) {
			t.Fatalf("%s: stored graph has no %s", bad.name, bad.from)
		}
		store[graphOnDisk(key)] = []byte(strings.Replace(string(data), bad.from, bad.to, 1))
		if _, ok := c.loadGraph(key, src, opts); ok {
			t.Errorf("%s: a stored chart the tree does not give is read", bad.name)
		}
	}
}
