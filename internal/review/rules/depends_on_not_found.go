package rules

import (
	"fmt"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// dependsOnNotFound reports dependsOn entries that name no Kustomization of the cluster:
// KC checkDependencies fails with "dependency '<ns>/<name>' not found" and requeues forever.
// A warning when a part of the graph not rendered may create it (unknownProducersIn of the
// dependency's namespace, the predicate health-check-not-found uses: a chart renders into
// its release namespace; the dependent itself aside: it applies nothing before its
// dependencies are Ready), unless the other commit had the dependency and the head renamed
// it (renamedTo): the PR removed it, whatever else is unknown. HelmRelease dependsOn
// entries are checked the same way (helmDependsOnNotFound).
func dependsOnNotFound(c, other *graph.Cluster, _ *Env) []Finding {
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		for _, dep := range distinct(ks.Spec.DependsOn) {
			if _, ok := c.Kustomizations[dep]; ok {
				continue
			}
			f := Finding{
				Rule: "depends-on-not-found", Severity: Error, Cluster: c.Name, Kustomization: ref.String(),
				Message: fmt.Sprintf("Kustomization %s dependsOn %s, which is not in the cluster: it will wait forever with 'dependency %s not found'.", ref, dep, dep),
				File:    ks.File, Line: dependsOnLine(c, ks, dep.Name), refs: []graph.Ref{ref}, key: dep.String(),
			}
			f.Suggestion = fmt.Sprintf("Remove `- name: %s` from spec.dependsOn of %s, or point it at an existing Kustomization.", dep.Name, ref)
			if ns, ok := otherNamespace(c, dep); ok {
				f.Message += fmt.Sprintf(" A Kustomization %s exists in namespace %s; dependsOn defaults to the dependent's own namespace.", dep.Name, ns)
				f.Suggestion = fmt.Sprintf("In %s, add `namespace: %s` under `- name: %s` in spec.dependsOn.", ks.File, ns, dep.Name)
			} else if renamed, ok := renamedTo(dep, c, other); ok {
				f.Message += fmt.Sprintf(" %s was renamed to %s (same path).", dep, renamed)
				f.Suggestion = fmt.Sprintf("In %s, replace `- name: %s` with `- name: %s` in spec.dependsOn.", ks.File, dep.Name, renamed.Name)
			}
			if _, renamed := renamedTo(dep, c, other); !renamed {
				uncertain(&f, unknownProducersExcept(c, dep.Namespace, "Kustomization "+ref.String()))
			}
			out = append(out, f)
		}
	}
	return append(out, helmDependsOnNotFound(c)...)
}

// uncertain makes f, a finding that something is missing, a warning naming the parts of
// the graph not rendered that may create it; f is unchanged when unknown is empty.
func uncertain(f *Finding, unknown []string) {
	if len(unknown) == 0 {
		return
	}
	f.Severity = Warning
	f.Message += fmt.Sprintf(" Not certain: %s may create it.", joinOr(capList(unknown, 3)))
}

// otherNamespace finds the namespace of the one Kustomization named like dep elsewhere.
func otherNamespace(c *graph.Cluster, dep graph.Ref) (string, bool) {
	found := ""
	for _, ref := range c.Order {
		if ref.Name == dep.Name && ref.Namespace != dep.Namespace {
			if found != "" {
				return "", false
			}
			found = ref.Namespace
		}
	}
	return found, found != ""
}

// renamedTo finds, when dep exists in the other commit, the Kustomization of c with the
// same spec.path: the likely new name of a renamed tier.
func renamedTo(dep graph.Ref, c, other *graph.Cluster) (graph.Ref, bool) {
	if other == nil {
		return graph.Ref{}, false
	}
	old, ok := other.Kustomizations[dep]
	if !ok {
		return graph.Ref{}, false
	}
	for _, ref := range c.Order {
		if _, existed := other.Kustomizations[ref]; !existed && samePath(c.Kustomizations[ref].Spec.Path, old.Spec.Path) {
			return ref, true
		}
	}
	return graph.Ref{}, false
}

// distinct returns deps without repeats, in first-entry order: an entry named twice (or
// once with its default namespace spelled out) is one dependency to the controllers'
// checkDependencies, so one finding, on its first entry.
func distinct(deps []graph.Ref) []graph.Ref {
	seen := map[graph.Ref]bool{}
	var out []graph.Ref
	for _, d := range deps {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}
