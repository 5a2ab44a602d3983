package render

import (
	"context"
	"fmt"
	"testing"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// BenchmarkHelmFleet renders a cluster of 100 HelmReleases (10 Kustomizations of 10, each
// with its own values) of one in-repo chart in process: cold, with a new Cache each time,
// and warm, with the Cache of an earlier render of the same tree (a review's head after its
// base, or the server's next review). ns/op is per review; divide by 100 per release.
func BenchmarkHelmFleet(b *testing.B) {
	files := merge(bootstrap("dev"), webChart())
	for k := range 10 {
		name := fmt.Sprintf("apps-%d", k)
		files["clusters/dev/"+name+".yaml"] = ks(name, "./"+name)
		for i := range 10 {
			files[fmt.Sprintf("%s/hr-%d.yaml", name, i)] = hr(fmt.Sprintf("web-%d-%d", k, i), gitChart, fmt.Sprintf("values: {replicas: %d}", i+1))
		}
	}
	dir := tree(b, files)
	src, err := fsys.ReadSource(dir, graph.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, cache func() *Cache) {
		for b.Loop() {
			g, err := RenderSource(context.Background(), src, Options{Cache: cache()})
			if err != nil {
				b.Fatal(err)
			}
			if n := countReleases(g); n != 100 {
				b.Fatalf("%d releases rendered, want 100", n)
			}
		}
	}
	b.Run("cold", func(b *testing.B) { run(b, func() *Cache { return NewCache(0) }) })
	warm := NewCache(0)
	if _, err := RenderSource(context.Background(), src, Options{Cache: warm}); err != nil {
		b.Fatal(err)
	}
	b.Run("warm", func(b *testing.B) { run(b, func() *Cache { return warm }) })
}

func countReleases(g *graph.Graph) int {
	n := 0
	for _, c := range g.Clusters {
		for _, ks := range c.Kustomizations {
			n += len(ks.Releases)
		}
	}
	return n
}
