package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// dependsOnCycle reports each strongly connected set of dependsOn edges: no member can
// become Ready, and kustomize-controller's sortAndEnqueue drops event-driven reconciles of
// every Kustomization on the source (flux-semantics.md §5, kustomize-controller#1712). Cycles of
// HelmRelease dependsOn edges are reported too (helmDependsOnCycles), and deadlocks through
// both kinds (mixedCycles).
func dependsOnCycle(c, other *graph.Cluster, _ *Env) []Finding {
	var out []Finding
	for _, scc := range cycles(c) {
		cycle, members := scc.cycle, scc.members
		names := make([]string, len(cycle))
		for i, r := range cycle {
			names[i] = r.String()
		}
		effect := kustomizationCycleEffect(c, members)
		msg := fmt.Sprintf("dependsOn cycle %s -> %s: %s", strings.Join(names, " -> "), names[0], effect)
		if len(members) > len(cycle) {
			all := make([]string, len(members))
			for i, r := range members {
				all[i] = r.String()
			}
			msg = fmt.Sprintf("dependsOn cycles among %s (one is %s -> %s): %s", strings.Join(all, ", "), strings.Join(names, " -> "), names[0], effect)
		}
		first := c.Kustomizations[cycle[0]]
		// The finding sits on the cycle's first edge, the entry a fix removes or keeps.
		next := cycle[1%len(cycle)]
		out = append(out, Finding{
			Rule: "depends-on-cycle", Severity: Error, Cluster: c.Name, Kustomization: cycle[0].String(),
			Message:    msg,
			Suggestion: cycleAdvice(c, other, cycle),
			File:       first.File, Line: dependsOnLine(c, first, next.Name), refs: members,
			resolvedAdvice: resolvedCycleAdvice(c, other, cycle),
		})
	}
	out = append(out, ancestorCycles(c)...)
	out = append(out, helmDependsOnCycles(c)...)
	return append(out, mixedCycles(c)...)
}

// kustomizationCycleEffect says what a dependsOn cycle among members does. kustomize-controller
// applies a Kustomization only once each dependency is Ready at its current generation and,
// when both use the same source, has applied the source's current revision
// (internal/controller/kustomization_controller.go checkDependencies, before every
// reconcile). So a new cluster never applies any member; a running one keeps what they
// applied, and the deadlock starts at the source's next revision (same source: each waits
// for the other to apply it first) or once one member is not Ready (different sources).
func kustomizationCycleEffect(c *graph.Cluster, members []graph.Ref) string {
	const cold = "on a new cluster none of these Kustomizations is ever applied; on a running cluster they keep what they applied, but "
	if sameSource(c, members) {
		return cold + "at the next revision of their source each waits for the others to apply it first ('revision is not up to date'), so none applies it or becomes Ready again."
	}
	return cold + "once one of them is not Ready (a failed apply or health check) the others wait for it and it for them, so none becomes Ready again."
}

// sameSource reports whether all of refs use one sourceRef (the case in which
// checkDependencies also compares the dependency's lastAppliedRevision).
func sameSource(c *graph.Cluster, refs []graph.Ref) bool {
	for _, r := range refs[1:] {
		if c.Kustomizations[r].Spec.SourceRef != c.Kustomizations[refs[0]].Spec.SourceRef {
			return false
		}
	}
	return true
}

// ancestorCycles reports a Kustomization that dependsOn an ancestor waiting for it: the
// ancestor is Ready only once it is (wait: true or a healthCheck naming it; kustomize-
// controller checkHealth, see waitDeadlock), and it only once the ancestor is
// (flux-semantics.md §5), so neither ever is.
func ancestorCycles(c *graph.Cluster) []Finding {
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		for _, d := range ks.Spec.DependsOn {
			if !waitedBy(c, ref, d) {
				continue
			}
			out = append(out, Finding{
				Rule: "depends-on-cycle", Severity: Error, Cluster: c.Name, Kustomization: ref.String(),
				Message:    fmt.Sprintf("%s dependsOn its ancestor %s, which waits for it to become Ready (wait: true or a healthCheck): %s", ref, d, ancestorCycleEffect(c, ref, d)),
				Suggestion: fmt.Sprintf("Remove `- name: %s` from spec.dependsOn of %s (a parent applies before its children anyway), or let %s stop waiting for it.", d.Name, ref, d),
				File:       ks.File, Line: dependsOnLine(c, ks, d.Name), refs: []graph.Ref{d, ref},
				resolvedAdvice: "Nothing to do: this change breaks the cycle.",
			})
		}
	}
	return out
}

// ancestorCycleEffect says what the deadlock of child and its waiting ancestor does: on a
// new cluster the ancestor's wait times out while the child waits for it; a running cluster
// keeps what they applied until the ancestor reconciles a revision the child must apply too
// (same source: checkDependencies compares lastAppliedRevision, and the ancestor is Ready
// Unknown while it reconciles, kustomization_controller.go reconcile) or changes the
// child's spec (its generation is then ahead of its observedGeneration).
func ancestorCycleEffect(c *graph.Cluster, child, ancestor graph.Ref) string {
	const cold = "on a new cluster neither becomes Ready; on a running cluster they keep what they applied, but "
	if sameSource(c, []graph.Ref{child, ancestor}) {
		return cold + "at the next revision of their source the ancestor waits for the child, and the child for the ancestor to apply it first, so neither becomes Ready again."
	}
	return cold + "once the ancestor changes the child's spec, or one of them is not Ready, each waits for the other, so neither becomes Ready again."
}

// waitedBy reports whether ancestor is reached from ref through parents that each wait for
// the child below them.
func waitedBy(c *graph.Cluster, ref, ancestor graph.Ref) bool {
	seen := map[graph.Ref]bool{}
	for child := ref; ; {
		ks := c.Kustomizations[child]
		if ks == nil || ks.Parent == nil || seen[*ks.Parent] {
			return false
		}
		parent := *ks.Parent
		seen[parent] = true
		if !waitsForChild(c.Kustomizations[parent], child) {
			return false
		}
		if parent == ancestor {
			return true
		}
		child = parent
	}
}

// component is a strongly connected set of Kustomizations: one elementary cycle through its
// smallest member, and all its members sorted.
type component struct{ cycle, members []graph.Ref }

// cycles returns the strongly connected components with a cycle of c's Kustomizations.
func cycles(c *graph.Cluster) []component {
	return cyclesOf(c.Order, func(r graph.Ref) []graph.Ref { return c.Kustomizations[r].Spec.DependsOn })
}

// cyclesOf returns the strongly connected components with a cycle (Tarjan) of the graph of
// nodes whose edges deps gives; edges to a node not in nodes are left out. Kustomizations
// and HelmReleases are both named namespace/name, so both use it.
func cyclesOf(nodes []graph.Ref, deps func(graph.Ref) []graph.Ref) []component {
	known := map[graph.Ref]bool{}
	for _, r := range nodes {
		known[r] = true
	}
	index, low := map[graph.Ref]int{}, map[graph.Ref]int{}
	onStack := map[graph.Ref]bool{}
	var stack []graph.Ref
	var out []component
	n := 0
	var visit func(v graph.Ref)
	visit = func(v graph.Ref) {
		index[v], low[v] = n, n
		n++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range deps(v) {
			if !known[w] {
				continue
			}
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var scc []graph.Ref
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			scc = append(scc, w)
			if w == v {
				break
			}
		}
		if len(scc) > 1 || slices.Contains(deps(v), v) {
			members := append([]graph.Ref(nil), scc...)
			sort.Slice(members, func(i, j int) bool { return members[i].String() < members[j].String() })
			out = append(out, component{cycle: shortestCycle(deps, members), members: members})
		}
	}
	refs := append([]graph.Ref(nil), nodes...)
	sort.Slice(refs, func(i, j int) bool { return refs[i].String() < refs[j].String() })
	for _, r := range refs {
		if _, seen := index[r]; !seen {
			visit(r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].cycle[0].String() < out[j].cycle[0].String() })
	return out
}

// shortestCycle returns the shortest dependsOn cycle through the smallest member (members
// are sorted), found breadth-first inside the component.
func shortestCycle(deps func(graph.Ref) []graph.Ref, members []graph.Ref) []graph.Ref {
	in := map[graph.Ref]bool{}
	for _, r := range members {
		in[r] = true
	}
	start := members[0]
	prev := map[graph.Ref]graph.Ref{}
	queue := []graph.Ref{start}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, d := range deps(cur) {
			if d == start {
				// Walked back from cur, then reversed: prepending would copy the path at
				// every step, quadratic in a ring of thousands.
				path := []graph.Ref{}
				for r := cur; r != start; r = prev[r] {
					path = append(path, r)
				}
				path = append(path, start)
				slices.Reverse(path)
				return path
			}
			if _, seen := prev[d]; in[d] && !seen {
				prev[d] = cur
				queue = append(queue, d)
			}
		}
	}
	return members
}

// cycleAdvice names the edges of cycle that other (the commit compared with) lacks: the
// ones the change adds, which are the ones to reconsider.
func cycleAdvice(c, other *graph.Cluster, cycle []graph.Ref) string {
	added := edgesOnlyIn(c, other, cycle)
	if len(added) == 0 || len(added) == len(cycle) {
		return "Remove one dependsOn edge of the cycle; a Kustomization should depend only on tiers that provide something it needs."
	}
	return "Remove the dependsOn edge this change adds: " + strings.Join(added, ", ") + "."
}

// resolvedCycleAdvice is the advice when cycle is at base only (c is the base): the change
// breaks it, by removing the edges of cycle that the head (other) lacks.
func resolvedCycleAdvice(c, other *graph.Cluster, cycle []graph.Ref) string {
	removed := edgesOnlyIn(c, other, cycle)
	if len(removed) == 0 {
		return "Nothing to do: this change breaks the cycle."
	}
	return "Nothing to do: this change breaks the cycle by removing the dependsOn edge " + strings.Join(removed, ", ") + "."
}

// edgesOnlyIn lists the edges of cycle, as "from -> to (file:line)" in c, that other lacks
// (a Kustomization other does not have lacks its edges); nil without other.
func edgesOnlyIn(c, other *graph.Cluster, cycle []graph.Ref) []string {
	if other == nil {
		return nil
	}
	var out []string
	for i, from := range cycle {
		to := cycle[(i+1)%len(cycle)]
		if ks := other.Kustomizations[from]; ks != nil && hasDep(ks, to) {
			continue
		}
		f := c.Kustomizations[from]
		out = append(out, fmt.Sprintf("%s -> %s (%s:%d)", from, to, f.File, dependsOnLine(c, f, to.Name)))
	}
	return out
}

func hasDep(ks *graph.Kustomization, to graph.Ref) bool {
	for _, d := range ks.Spec.DependsOn {
		if d == to {
			return true
		}
	}
	return false
}
