package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tiergate/tiergate/internal/render"
)

// dependsOnCycle reports each strongly connected set of dependsOn edges: no member can
// become Ready, and kustomize-controller's sortAndEnqueue drops event-driven reconciles of
// every Kustomization on the source (flux-semantics.md §5, kustomize-controller#1712).
func dependsOnCycle(c, _ *render.Cluster, _ *Env) []Finding {
	var out []Finding
	for _, scc := range cycles(c) {
		names := make([]string, len(scc))
		for i, r := range scc {
			names[i] = r.String()
		}
		first := c.Kustomizations[scc[0]]
		out = append(out, Finding{
			Rule: "depends-on-cycle", Severity: Error, Cluster: c.Name, Kustomization: scc[0].String(),
			Message:    fmt.Sprintf("dependsOn cycle %s -> %s: none of these Kustomizations can become Ready.", strings.Join(names, " -> "), names[0]),
			Suggestion: "Remove one dependsOn edge of the cycle; a Kustomization should depend only on tiers that provide something it needs.",
			File:       first.File, Line: first.Line, key: strings.Join(names, ","),
		})
	}
	return out
}

// cycles returns the strongly connected components with a cycle (Tarjan), each rotated
// to start at its smallest member and ordered along the dependsOn edges where possible.
func cycles(c *render.Cluster) [][]render.Ref {
	index, low := map[render.Ref]int{}, map[render.Ref]int{}
	onStack := map[render.Ref]bool{}
	var stack []render.Ref
	var out [][]render.Ref
	n := 0
	var visit func(v render.Ref)
	visit = func(v render.Ref) {
		index[v], low[v] = n, n
		n++
		stack = append(stack, v)
		onStack[v] = true
		for _, w := range c.Kustomizations[v].Spec.DependsOn {
			if _, ok := c.Kustomizations[w]; !ok {
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
		var scc []render.Ref
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			scc = append(scc, w)
			if w == v {
				break
			}
		}
		if len(scc) > 1 || selfLoop(c, v) {
			out = append(out, orderCycle(c, scc))
		}
	}
	refs := append([]render.Ref(nil), c.Order...)
	sort.Slice(refs, func(i, j int) bool { return refs[i].String() < refs[j].String() })
	for _, r := range refs {
		if _, seen := index[r]; !seen {
			visit(r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0].String() < out[j][0].String() })
	return out
}

func selfLoop(c *render.Cluster, v render.Ref) bool {
	for _, d := range c.Kustomizations[v].Spec.DependsOn {
		if d == v {
			return true
		}
	}
	return false
}

// orderCycle starts at the smallest member and follows dependsOn edges inside the set.
func orderCycle(c *render.Cluster, scc []render.Ref) []render.Ref {
	in := map[render.Ref]bool{}
	start := scc[0]
	for _, r := range scc {
		in[r] = true
		if r.String() < start.String() {
			start = r
		}
	}
	out := []render.Ref{start}
	seen := map[render.Ref]bool{start: true}
	for cur := start; len(out) < len(scc); {
		next := render.Ref{}
		for _, d := range c.Kustomizations[cur].Spec.DependsOn {
			if in[d] && !seen[d] {
				next = d
				break
			}
		}
		if next == (render.Ref{}) {
			break
		}
		out = append(out, next)
		seen[next] = true
		cur = next
	}
	for _, r := range scc { // members not on the walked path
		if !seen[r] {
			out = append(out, r)
		}
	}
	return out
}
