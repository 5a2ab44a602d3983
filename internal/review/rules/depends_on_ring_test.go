package rules

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// ringCluster is a cluster of n Kustomizations t00000... in one file, clusters/dev/tiers.yaml,
// as docs/graphshapes.py writes it: tNNNNN dependsOn each of deps(i), one `- name:` line
// each. It has the artifact (Source), so findings are located at the dependsOn entries.
func ringCluster(n int, deps func(i int) []int) *graph.Cluster {
	const file = "clusters/dev/tiers.yaml"
	root := graph.Ref{Namespace: "flux-system", Name: "flux-system"}
	c := &graph.Cluster{Name: "dev", Root: root, Kustomizations: map[graph.Ref]*graph.Kustomization{
		root: {Ref: root, File: "clusters/dev/flux-system/gotk-sync.yaml", Line: 12},
	}, Order: []graph.Ref{root}}
	var text []string
	for i := range n {
		ks := &graph.Kustomization{Ref: ringRef(i), Parent: &root, File: file, Line: len(text) + 1}
		text = append(text, "apiVersion: kustomize.toolkit.fluxcd.io/v1", "kind: Kustomization", "metadata:",
			fmt.Sprintf("  name: t%05d", i), "  namespace: flux-system", "spec:", "  interval: 10m",
			fmt.Sprintf("  path: ./apps/t%05d", i), "  prune: true")
		if d := deps(i); len(d) > 0 {
			text = append(text, "  dependsOn:")
			for _, j := range d {
				text = append(text, fmt.Sprintf("    - name: t%05d", j))
				ks.Spec.DependsOn = append(ks.Spec.DependsOn, ringRef(j))
			}
		}
		text = append(text, "  sourceRef:", "    kind: GitRepository", "    name: flux-system", "---")
		c.Kustomizations[ks.Ref] = ks
		c.Order = append(c.Order, ks.Ref)
	}
	c.Source = graph.NewSnapshot("/repo")
	c.Source.Data[file] = []byte(strings.Join(text, "\n"))
	return c
}

func ringRef(i int) graph.Ref {
	return graph.Ref{Namespace: "flux-system", Name: fmt.Sprintf("t%05d", i)}
}

// ringNames is "flux-system/tA -> ... -> flux-system/tB" for a..b.
func ringNames(idx ...int) string {
	names := make([]string, len(idx))
	for k, i := range idx {
		names[k] = ringRef(i).String()
	}
	return strings.Join(names, " -> ")
}

func upTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// A ring of 2,000 is one depends-on-cycle finding: the cycle in dependsOn order from its
// smallest member, located at t00000's entry, its members all 2,000; the edge the change
// adds (or removes) is named with its own line. The 2,000 line lookups used to split the
// 30,000-line file each.
func TestDependsOnCycleRing(t *testing.T) {
	const n = 2000
	ring := ringCluster(n, func(i int) []int { return []int{(i + 1) % n} })
	open := ringCluster(n, func(i int) []int { // the ring less its closing edge
		if i == n-1 {
			return nil
		}
		return []int{i + 1}
	})
	// Each document is 15 lines and its one entry the 11th.
	entry := func(i int) int { return 15*i + 11 }
	members := make([]graph.Ref, n)
	for i := range members {
		members[i] = ringRef(i)
	}
	cycleMsg := "dependsOn cycle " + ringNames(append(upTo(n), 0)...) + ": " + sharedSourceCycle
	closing := fmt.Sprintf("flux-system/t01999 -> flux-system/t00000 (clusters/dev/tiers.yaml:%d)", entry(n-1))

	got := dependsOnCycle(ring, open, testEnv())
	want := []Finding{{
		Rule: "depends-on-cycle", Severity: Error, Cluster: "dev", Kustomization: "flux-system/t00000",
		Message:    cycleMsg,
		Suggestion: "Remove the dependsOn edge this change adds: " + closing + ".",
		File:       "clusters/dev/tiers.yaml", Line: entry(0), refs: members,
		resolvedAdvice: "Nothing to do: this change breaks the cycle by removing the dependsOn edge " + closing + ".",
	}}
	diffFindings(t, "ring after open", got, want)
	// At base, the change removes the closing edge.
	got = dependsOnCycle(ring, ringCluster(n, func(i int) []int { return []int{(i + 1) % n} }), testEnv())
	if len(got) != 1 || got[0].Resolved().Suggestion != "Nothing to do: this change breaks the cycle." {
		t.Errorf("ring against itself: %+v", got)
	}
	if got := dependsOnCycle(open, nil, testEnv()); len(got) != 0 {
		t.Errorf("open ring: %d findings, want none: %+v", len(got), got)
	}
}

// A ring with a chord (t00000 also dependsOn t01997) is one finding for the one strongly
// connected set: the shortest cycle through t00000, the chord's, at the chord's entry (line
// 12, its first edge), and every member.
func TestDependsOnCycleRingChord(t *testing.T) {
	const n = 2000
	c := ringCluster(n, func(i int) []int {
		if i == 0 {
			return []int{1, n - 3}
		}
		return []int{(i + 1) % n}
	})
	got := dependsOnCycle(c, nil, testEnv())
	all := make([]string, n)
	for i := range all {
		all[i] = ringRef(i).String()
	}
	msg := "dependsOn cycles among " + strings.Join(all, ", ") + " (one is " + ringNames(0, n-3, n-2, n-1, 0) +
		"): " + sharedSourceCycle
	if len(got) != 1 || got[0].Message != msg || got[0].Line != 12 || len(got[0].refs) != n {
		t.Fatalf("got %d findings, want 1 with message %.120q... at line 12 with %d members: %+v", len(got), msg, n, got)
	}
}

// diffFindings compares got with want whole and names the fields that differ, the ends of
// long strings cut.
func diffFindings(t *testing.T, name string, got, want []Finding) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d findings, want %d", name, len(got), len(want))
	}
	cut := func(v any) string {
		s := fmt.Sprintf("%+v", v)
		if len(s) > 300 {
			s = s[:150] + " ... " + s[len(s)-150:]
		}
		return s
	}
	for i, g := range got {
		w := want[i]
		for _, f := range []struct {
			name      string
			got, want any
		}{{"Rule", g.Rule, w.Rule}, {"Severity", g.Severity, w.Severity}, {"Cluster", g.Cluster, w.Cluster},
			{"Kustomization", g.Kustomization, w.Kustomization}, {"Message", g.Message, w.Message},
			{"Suggestion", g.Suggestion, w.Suggestion}, {"File", g.File, w.File}, {"Line", g.Line, w.Line},
			{"refs", g.refs, w.refs}, {"resolvedAdvice", g.resolvedAdvice, w.resolvedAdvice}} {
			if !reflect.DeepEqual(f.got, f.want) {
				t.Errorf("%s: finding %d %s:\n got %s\nwant %s", name, i, f.name, cut(f.got), cut(f.want))
			}
		}
	}
	t.Errorf("%s: findings differ", name)
}

// BenchmarkDependsOnCycleAdded reviews a change that closes a ring of 1,000, 2,000 and
// 5,000 Kustomizations in one file, and one that adds every edge of it: depends-on-cycle
// locates each edge only one side has (cycleAdvice, resolvedCycleAdvice), a line lookup in
// the 15·N-line file per edge (docs/performance.md "Time by graph shape").
func BenchmarkDependsOnCycleAdded(b *testing.B) {
	for _, n := range []int{1000, 2000, 5000} {
		ring := ringCluster(n, func(i int) []int { return []int{(i + 1) % n} })
		open := ringCluster(n, func(i int) []int {
			if i == n-1 {
				return nil
			}
			return []int{i + 1}
		})
		none := ringCluster(n, func(int) []int { return nil })
		for name, base := range map[string]*graph.Cluster{"closing": open, "all": none} {
			b.Run(fmt.Sprintf("%s-%d", name, n), func(b *testing.B) {
				for range b.N {
					ring.Source = cloneSource(ring.Source) // a new review: nothing split yet
					if got := dependsOnCycle(ring, base, testEnv()); len(got) != 1 {
						b.Fatalf("%d findings, want 1", len(got))
					}
				}
			})
		}
	}
}

func cloneSource(s *graph.Snapshot) *graph.Snapshot {
	out := graph.NewSnapshot(s.Root)
	for k, v := range s.Data {
		out.Data[k] = v
	}
	return out
}
