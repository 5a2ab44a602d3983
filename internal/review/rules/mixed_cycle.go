package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// mixedCycles reports a deadlock through both kinds of dependsOn: a Kustomization X waits
// for a HelmRelease A it applies (wait: true or a healthCheck naming it; kustomize-controller
// checkHealth), A dependsOn HelmRelease B (helm-controller installs A only once B is Ready:
// internal/controller/helmrelease_controller.go checkDependencies), and B is applied by a
// Kustomization Y that dependsOn X (kustomize-controller applies Y only once X is Ready:
// checkDependencies). Nodes are "Kustomization/ns/name" and "HelmRelease/ns/name"; an edge
// is "cannot become Ready before": X -> A when X waits for A, A -> B for A's dependsOn,
// B -> D for each dependsOn D of the Kustomization applying B, X -> D for X's dependsOn.
// On a running cluster every wait of the cycle is met while each member is Ready (X's wait
// ends when A is, A's check passes while B is, Y's once X applied), so the deadlock starts
// only once one of them is not. Only cycles with both kinds are reported here: the others are dependsOnCycle's and
// helmDependsOnCycles'.
func mixedCycles(c *graph.Cluster) []Finding {
	kNode := func(r graph.Ref) graph.Ref {
		return graph.Ref{Namespace: "Kustomization/" + r.Namespace, Name: r.Name}
	}
	hNode := func(r graph.Ref) graph.Ref {
		return graph.Ref{Namespace: "HelmRelease/" + r.Namespace, Name: r.Name}
	}
	edges := map[graph.Ref][]graph.Ref{}
	why := map[[2]graph.Ref]string{}
	hrs := map[graph.Ref]hrNode{}
	var nodes []graph.Ref
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		nodes = append(nodes, kNode(ref))
		for _, d := range ks.Spec.DependsOn {
			edges[kNode(ref)] = append(edges[kNode(ref)], kNode(d))
			why[[2]graph.Ref{kNode(ref), kNode(d)}] = fmt.Sprintf("Kustomization %s dependsOn %s", ref, d)
		}
	}
	for _, h := range helmReleases(c) {
		if h.suspended() {
			continue
		}
		hrs[h.ref] = h
		n := hNode(h.ref)
		nodes = append(nodes, n)
		ks := c.Kustomizations[h.ks]
		if ks != nil && waitsForHelmRelease(ks, h.ref) {
			edges[kNode(h.ks)] = append(edges[kNode(h.ks)], n)
			why[[2]graph.Ref{kNode(h.ks), n}] = fmt.Sprintf("Kustomization %s waits for HelmRelease %s", h.ks, h.ref)
		}
		for _, d := range h.dependsOn() {
			edges[n] = append(edges[n], hNode(d))
			why[[2]graph.Ref{n, hNode(d)}] = fmt.Sprintf("HelmRelease %s dependsOn %s", h.ref, d)
		}
		if ks != nil {
			for _, d := range ks.Spec.DependsOn {
				edges[n] = append(edges[n], kNode(d))
				why[[2]graph.Ref{n, kNode(d)}] = fmt.Sprintf("HelmRelease %s is applied by %s, which dependsOn %s", h.ref, h.ks, d)
			}
		}
	}
	var out []Finding
	for _, scc := range cyclesOf(nodes, func(r graph.Ref) []graph.Ref { return edges[r] }) {
		var steps, members []string
		var kss []graph.Ref
		kinds := map[bool]bool{}
		for i, r := range scc.cycle {
			to := scc.cycle[(i+1)%len(scc.cycle)]
			steps = append(steps, why[[2]graph.Ref{r, to}])
			kinds[strings.HasPrefix(r.Namespace, "HelmRelease/")] = true
		}
		if len(kinds) < 2 {
			continue
		}
		for _, r := range scc.members {
			members = append(members, r.String())
			if ns, ok := strings.CutPrefix(r.Namespace, "Kustomization/"); ok {
				kss = append(kss, graph.Ref{Namespace: ns, Name: r.Name})
			}
		}
		sort.Strings(members)
		// The finding is on the first HelmRelease dependsOn entry of the cycle.
		var f Finding
		for i, r := range scc.cycle {
			to := scc.cycle[(i+1)%len(scc.cycle)]
			hns, ok := strings.CutPrefix(r.Namespace, "HelmRelease/")
			_, tok := strings.CutPrefix(to.Namespace, "HelmRelease/")
			if !ok || !tok {
				continue
			}
			h := hrs[graph.Ref{Namespace: hns, Name: r.Name}]
			id := h.o.ID
			f = Finding{Rule: "depends-on-cycle", Severity: Error, Cluster: c.Name, Kustomization: h.ks.String(), Object: &id,
				File: h.o.File, Line: dependsOnEntry(c, h.o.File, h.o.Line, to.Name)}
			break
		}
		if f.Rule == "" {
			continue // no HelmRelease edge: a Kustomization waiting for a HelmRelease it dependsOn through, reported elsewhere
		}
		f.Message = fmt.Sprintf("dependsOn cycle through Kustomizations and HelmReleases %s -> %s: %s; on a new cluster none of them ever becomes Ready; "+
			"on a running cluster they keep running, but once one of them is not Ready (a failed upgrade, apply or health check) each waits for the next, so none becomes Ready again.",
			strings.Join(cycleNames(scc.cycle), " -> "), scc.cycle[0], strings.Join(steps, ", "))
		f.Suggestion = "Break one link: stop the waiting Kustomization from waiting for its HelmRelease (wait: false, healthChecks without it), remove the HelmRelease dependsOn entry, or move the HelmRelease it depends on to a Kustomization that does not dependsOn the waiting one."
		f.refs, f.key = kss, "mixed "+strings.Join(members, ",")
		f.resolvedAdvice = "Nothing to do: this change breaks the cycle."
		out = append(out, f)
	}
	return out
}

func cycleNames(cycle []graph.Ref) []string {
	out := make([]string, len(cycle))
	for i, r := range cycle {
		out[i] = r.String()
	}
	return out
}

// waitsForHelmRelease reports whether ks is Ready only once HelmRelease hr is: wait: true,
// or a healthChecks entry naming it (its namespace defaults to ks's; kustomize-controller
// checkHealth).
func waitsForHelmRelease(ks *graph.Kustomization, hr graph.Ref) bool {
	if ks.Spec.Wait {
		return true
	}
	for _, hc := range ks.Spec.HealthChecks {
		ns := hc.Namespace
		if ns == "" {
			ns = ks.Ref.Namespace
		}
		if hc.Kind == "HelmRelease" && hc.Name == hr.Name && ns == hr.Namespace {
			return true
		}
	}
	return false
}
