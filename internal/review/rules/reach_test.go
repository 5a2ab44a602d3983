package rules

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// shapeCluster is a cluster of n Kustomizations t00000... under a root, each with one
// ConfigMap, their dependsOn in a shape: "ring" (each depends on the next, the last on the
// first), "chain" (each on the one before), "star" (each on t00000) or "none".
func shapeCluster(shape string, n int) *graph.Cluster {
	root := graph.Ref{Namespace: "flux-system", Name: "flux-system"}
	c := &graph.Cluster{Name: "dev", Root: root, Kustomizations: map[graph.Ref]*graph.Kustomization{
		root: {Ref: root, File: "clusters/dev/flux-system/gotk-sync.yaml", Line: 12},
	}, Order: []graph.Ref{root}, Owners: map[graph.ObjectID][]*graph.Object{}}
	ref := func(i int) graph.Ref { return graph.Ref{Namespace: "flux-system", Name: fmt.Sprintf("t%05d", i)} }
	for i := range n {
		ks := &graph.Kustomization{Ref: ref(i), Parent: &root, File: "clusters/dev/tiers.yaml", Line: 1 + 14*i}
		switch {
		case shape == "ring":
			ks.Spec.DependsOn = []graph.Ref{ref((i + 1) % n)}
		case shape == "chain" && i > 0:
			ks.Spec.DependsOn = []graph.Ref{ref(i - 1)}
		case shape == "star" && i > 0:
			ks.Spec.DependsOn = []graph.Ref{ref(0)}
		}
		name := fmt.Sprintf("c%05d", i)
		o := &graph.Object{ID: graph.ObjectID{Kind: "ConfigMap", Namespace: "default", Name: name},
			Owner: ks.Ref, File: fmt.Sprintf("apps/t%05d/cm.yaml", i), Line: 1,
			Body: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": name, "namespace": "default"}, "data": map[string]any{"k": "v"}}}}
		ks.Objects = []*graph.Object{o}
		c.Owners[o.ID] = []*graph.Object{o}
		c.Kustomizations[ks.Ref] = ks
		c.Order = append(c.Order, ks.Ref)
	}
	return c
}

// Every shape answers as the reference breadth-first search does, for every pair.
func TestReachabilityShapes(t *testing.T) {
	for _, shape := range []string{"ring", "chain", "star", "none"} {
		c := shapeCluster(shape, 40)
		v := newView(c)
		reached := 0
		for _, from := range c.Order {
			for _, to := range c.Order {
				got, want := v.dependsOnPath(from, to), refReach(c, from, to, false)
				if got != want {
					t.Errorf("%s: dependsOnPath(%s, %s) = %t, reference %t", shape, from, to, got, want)
				}
				if got {
					reached++
				}
				if got, want := v.appliesAfter(from, to), from == to || refReach(c, from, to, true); got != want {
					t.Errorf("%s: appliesAfter(%s, %s) = %t, reference %t", shape, from, to, got, want)
				}
			}
		}
		// ring: each of 40 reaches all 40 (itself through the ring); chain: 0+1+...+39;
		// star: 39 reach t00000.
		want := map[string]int{"ring": 40 * 40, "chain": 40 * 39 / 2, "star": 39, "none": 0}[shape]
		if reached != want {
			t.Errorf("%s: %d dependsOn paths, want %d", shape, reached, want)
		}
	}
}

// A dependsOn naming a Kustomization that does not exist is reached (the dependent waits
// for it) and leads nowhere; a self-dependency is a path to itself.
func TestReachabilityMissingAndSelf(t *testing.T) {
	a, b, gone := graph.Ref{Namespace: "x", Name: "a"}, graph.Ref{Namespace: "x", Name: "b"}, graph.Ref{Namespace: "x", Name: "gone"}
	c := &graph.Cluster{Kustomizations: map[graph.Ref]*graph.Kustomization{
		a: {Ref: a, Spec: graph.Spec{DependsOn: []graph.Ref{gone, a}}},
		b: {Ref: b, Spec: graph.Spec{DependsOn: []graph.Ref{a}}},
	}, Order: []graph.Ref{a, b}}
	v := newView(c)
	for _, q := range []struct {
		from, to graph.Ref
		want     bool
	}{{a, gone, true}, {a, a, true}, {b, a, true}, {b, gone, true}, {b, b, false}, {a, b, false}, {gone, a, false}, {gone, gone, false}} {
		if got := v.dependsOnPath(q.from, q.to); got != q.want {
			t.Errorf("dependsOnPath(%s, %s) = %t, want %t", q.from, q.to, got, q.want)
		}
	}
}

// BenchmarkDependsOnGraph runs every state rule on clusters of 1,000, 2,000 and 5,000
// Kustomizations whose dependsOn form a ring, a chain or a star, then asks what
// missing-depends-on asks of each Kustomization that needs its root's GitRepository
// (appliesAfter to the root, a dependsOn path to the first tier and back) (docs/performance.md).
// With -benchmem, B/op is what the dependsOn reasoning allocates; it was quadratic.
func BenchmarkDependsOnGraph(b *testing.B) {
	for _, shape := range []string{"ring", "chain", "star"} {
		for _, n := range []int{1000, 2000, 5000} {
			b.Run(fmt.Sprintf("%s-%d", shape, n), func(b *testing.B) {
				c := shapeCluster(shape, n)
				b.ResetTimer()
				for range b.N {
					env := &Env{}
					for _, r := range State {
						r.Check(c, c, env)
					}
					v, first := env.view(c), c.Order[1]
					for _, ref := range c.Order {
						_ = v.appliesAfter(ref, c.Root) && v.dependsOnPath(ref, first) && v.dependsOnPath(first, ref)
					}
				}
			})
		}
	}
}
