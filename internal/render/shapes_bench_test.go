package render

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/api/krusty"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// shapeTree is docs/graphshapes.py in Go: the bootstrap of cluster dev, and n
// Kustomizations tNNNNN in clusters/dev/tiers.yaml, each applying one ConfigMap from
// apps/tNNNNN, their dependsOn a ring (each on the next, the last on the first), a chain
// (each on the one before) or a star (each on t00000).
func shapeTree(shape string, n int) map[string]string {
	files := bootstrap("dev")
	docs := make([]string, n)
	for i := range n {
		var spec []string
		switch {
		case shape == "ring":
			spec = []string{"dependsOn:", fmt.Sprintf("  - name: t%05d", (i+1)%n)}
		case shape == "chain" && i > 0:
			spec = []string{"dependsOn:", fmt.Sprintf("  - name: t%05d", i-1)}
		case shape == "star" && i > 0:
			spec = []string{"dependsOn:", "  - name: t00000"}
		}
		name := fmt.Sprintf("t%05d", i)
		docs[i] = ks(name, "./apps/"+name, spec...)
		files["apps/"+name+"/cm.yaml"] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%05d\n  namespace: default\ndata:\n  k: v\n", i)
	}
	files["clusters/dev/tiers.yaml"] = strings.Join(docs, "---\n")
	return files
}

// BenchmarkGraphShapes renders clusters of 1,000, 2,000 and 5,000 Kustomizations whose
// dependsOn form a ring, a chain or a star (docs/performance.md "Time by graph shape"):
//   - render: the whole graph in process, cold (a new Cache), as `bot graph --no-cache`;
//   - kustomize: the root folder's one kustomize build alone (krusty with
//     kustomize-controller's options on a kustomization.yaml listing tiers.yaml), the part
//     of render that kustomize-controller spends too. kustomize checks every object it adds
//     against all it holds (api/resmap reswrangler.go Append), so it grows with the square of
//     a build's objects; render minus kustomize is tiergate's own work.
func BenchmarkGraphShapes(b *testing.B) {
	for _, n := range []int{1000, 2000, 5000} {
		for _, shape := range []string{"ring", "chain", "star"} {
			files := shapeTree(shape, n)
			b.Run(fmt.Sprintf("render/%s-%d", shape, n), func(b *testing.B) { benchRender(b, files, n) })
			b.Run(fmt.Sprintf("kustomize/%s-%d", shape, n), func(b *testing.B) { benchKustomize(b, files["clusters/dev/tiers.yaml"], n) })
		}
	}
}

func benchRender(b *testing.B, files map[string]string, n int) {
	// 5,000 tiers and the root's own Kustomization exceed the default limits of 5,000.
	limits := graph.Limits{MaxKustomizations: n + 10, MaxBuildDocuments: n + 10}
	src, err := fsys.ReadSource(tree(b, files), limits)
	if err != nil {
		b.Fatal(err)
	}
	defer reportCPU(b)()
	for range b.N {
		g, err := RenderSource(context.Background(), src, Options{Cache: NewCache(0), Limits: limits})
		if err != nil {
			b.Fatal(err)
		}
		if got := len(g.Clusters[0].Kustomizations); got != n+1 {
			b.Fatalf("%d Kustomizations rendered, want %d", got, n+1)
		}
	}
}

func benchKustomize(b *testing.B, tiers string, n int) {
	dir := tree(b, map[string]string{"kustomization.yaml": "resources: [tiers.yaml]\n", "tiers.yaml": tiers})
	k := krusty.MakeKustomizer(&krusty.Options{LoadRestrictions: kustypes.LoadRestrictionsNone, PluginConfig: kustypes.DisabledPluginConfig()})
	defer reportCPU(b)()
	for range b.N {
		res, err := k.Run(filesys.MakeFsOnDisk(), dir)
		if err != nil {
			b.Fatal(err)
		}
		if res.Size() != n {
			b.Fatalf("%d objects built, want %d", res.Size(), n)
		}
	}
}

// reportCPU resets the timer and returns the function that reports the process's CPU time
// (user and system, all threads) per op as cpu-s/op: on a machine shared with other work
// it varies far less than ns/op, which counts the waits for a core.
func reportCPU(b *testing.B) func() {
	b.ResetTimer()
	start := cpuTime()
	return func() { b.ReportMetric((cpuTime()-start).Seconds()/float64(b.N), "cpu-s/op") }
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
