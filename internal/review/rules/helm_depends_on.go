package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// helmDependsOnNotFound reports HelmRelease dependsOn entries that name no HelmRelease of
// the cluster. helm-controller's checkDependencies (internal/controller/
// helmrelease_controller.go) gets a v2.HelmRelease of that namespace/name, the namespace
// defaulting to the dependent's own; when it is missing the dependent is never installed
// or upgraded and is requeued every --requeue-dependency interval, forever. It looks up
// HelmReleases only: a Kustomization of that name never matches (ionfury/homelab#272).
// A warning when a part of the graph not rendered may create the HelmRelease
// (unknownProducersIn of its namespace), the dependent's own chart aside: it is never
// installed before the dependency is Ready.
func helmDependsOnNotFound(c *graph.Cluster) []Finding {
	hrs := helmReleases(c)
	exists := map[graph.Ref]bool{}
	for _, h := range hrs {
		exists[h.ref] = true
	}
	var out []Finding
	for _, h := range hrs {
		if h.suspended() {
			continue
		}
		for _, dep := range distinct(h.dependsOn()) {
			if exists[dep] {
				continue
			}
			id := h.o.ID
			f := Finding{
				Rule: "depends-on-not-found", Severity: Error, Cluster: c.Name, Kustomization: h.ks.String(), Object: &id,
				Message: fmt.Sprintf("HelmRelease %s dependsOn %s, which is not a HelmRelease in the cluster, so helm-controller never installs or upgrades it: "+
					"its Ready condition reads 'unable to get '%s' dependency: helmreleases.helm.toolkit.fluxcd.io \"%s\" not found'.",
					h.ref, dep, dep, dep.Name),
				Suggestion: fmt.Sprintf("Remove `- name: %s` from spec.dependsOn of HelmRelease %s, or point it at an existing HelmRelease.", dep.Name, h.ref),
				File:       h.o.File, Line: dependsOnEntry(c, h.o.File, h.o.Line, dep.Name), key: "HelmRelease " + dep.String(),
			}
			if ks, ok := kustomizationNamed(c, dep); ok {
				// The entry means that Kustomization: a HelmRelease of the same name in a part
				// not rendered is no reason to doubt it, so an error even then.
				f.Message += fmt.Sprintf(" %s is a Kustomization: a HelmRelease's dependsOn names HelmReleases only, never a Kustomization.", ks)
				f.Suggestion = fmt.Sprintf("Remove `- name: %s` from spec.dependsOn of HelmRelease %s; to order it after Kustomization %s, add it to the dependsOn of Kustomization %s, which applies the HelmRelease (with `wait: true` on %s if the HelmRelease needs what it applies to be Ready).",
					dep.Name, h.ref, ks, h.ks, ks)
				if owner := c.Kustomizations[h.ks]; owner != nil && slices.Contains(owner.Spec.DependsOn, ks) {
					f.Suggestion = fmt.Sprintf("Remove `- name: %s` from spec.dependsOn of HelmRelease %s: Kustomization %s, which applies it, already dependsOn %s.",
						dep.Name, h.ref, h.ks, ks)
				}
				if ks == h.ks {
					f.Suggestion = fmt.Sprintf("Remove `- name: %s` from spec.dependsOn of HelmRelease %s: Kustomization %s is the one that applies it, so the HelmRelease exists only once it is applying anyway.",
						dep.Name, h.ref, ks)
				}
			} else if ns, ok := otherReleaseNamespace(hrs, dep); ok {
				f.Message += fmt.Sprintf(" A HelmRelease %s exists in namespace %s; dependsOn defaults to the dependent's own namespace.", dep.Name, ns)
				f.Suggestion = fmt.Sprintf("In %s, add `namespace: %s` under `- name: %s` in spec.dependsOn of HelmRelease %s.", h.o.File, ns, dep.Name, h.ref)
			}
			if _, ok := kustomizationNamed(c, dep); !ok {
				uncertain(&f, unknownProducersExcept(c, dep.Namespace, "HelmRelease "+h.ref.String()))
			}
			out = append(out, f)
		}
	}
	return out
}

// kustomizationNamed finds the Kustomization dep names: the same namespace/name, else the
// one Kustomization of that name.
func kustomizationNamed(c *graph.Cluster, dep graph.Ref) (graph.Ref, bool) {
	if _, ok := c.Kustomizations[dep]; ok {
		return dep, true
	}
	if ns, ok := otherNamespace(c, dep); ok {
		return graph.Ref{Namespace: ns, Name: dep.Name}, true
	}
	return graph.Ref{}, false
}

// otherReleaseNamespace finds the namespace of the one HelmRelease named like dep elsewhere.
func otherReleaseNamespace(hrs []hrNode, dep graph.Ref) (string, bool) {
	found := ""
	for _, h := range hrs {
		if h.ref.Name == dep.Name && h.ref.Namespace != dep.Namespace {
			if found != "" {
				return "", false
			}
			found = h.ref.Namespace
		}
	}
	return found, found != ""
}

// helmDependsOnCycles reports each strongly connected set of HelmRelease dependsOn edges:
// checkDependencies (internal/controller/helmrelease_controller.go, before every reconcile)
// requires every dependency to be Ready at its current generation, so on a new cluster no
// member is ever installed; on a running one the releases stay, and the cycle deadlocks once
// one member is not Ready (its reconcile then marks it Ready=False, DependencyNotReady, and
// the others fail their check against it). Suspended HelmReleases are left out: they check
// nothing.
func helmDependsOnCycles(c *graph.Cluster) []Finding {
	byRef := map[graph.Ref]hrNode{}
	var nodes []graph.Ref
	for _, h := range helmReleases(c) {
		if !h.suspended() {
			byRef[h.ref] = h
			nodes = append(nodes, h.ref)
		}
	}
	deps := func(r graph.Ref) []graph.Ref { return byRef[r].dependsOn() }
	var out []Finding
	for _, scc := range cyclesOf(nodes, deps) {
		names := make([]string, len(scc.cycle))
		var edges []string
		for i, r := range scc.cycle {
			names[i] = r.String()
			to := scc.cycle[(i+1)%len(scc.cycle)]
			h := byRef[r]
			edges = append(edges, fmt.Sprintf("%s -> %s (%s:%d)", r, to, h.o.File, dependsOnEntry(c, h.o.File, h.o.Line, to.Name)))
		}
		first := byRef[scc.cycle[0]]
		next := scc.cycle[1%len(scc.cycle)]
		id := first.o.ID
		out = append(out, Finding{
			Rule: "depends-on-cycle", Severity: Error, Cluster: c.Name, Kustomization: first.ks.String(), Object: &id,
			Message: fmt.Sprintf("HelmRelease dependsOn cycle %s -> %s: helm-controller installs or upgrades a HelmRelease only once its dependencies are Ready, "+
				"so on a new cluster none of these is ever installed; on a running cluster the releases stay installed, but once one of them is not Ready "+
				"(a failed upgrade, a spec change not yet reconciled) the others wait for it and it for them, so none becomes Ready again.",
				strings.Join(names, " -> "), names[0]),
			Suggestion: "Remove one HelmRelease dependsOn edge of the cycle: " + strings.Join(edges, ", ") + ".",
			File:       first.o.File, Line: dependsOnEntry(c, first.o.File, first.o.Line, next.Name), refs: scc.members, key: "HelmRelease",
			resolvedAdvice: "Nothing to do: this change breaks the cycle.",
		})
	}
	return out
}
