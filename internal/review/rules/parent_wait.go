package rules

import (
	"github.com/tiergate/tiergate/internal/render/graph"
)

// waitDeadlock returns the ancestor of holder that waits for holder to become Ready and
// that provider cannot become Ready before: a dependsOn edge from holder to provider would
// then never resolve (the ancestor waits for holder, holder for provider, provider for the
// ancestor). An ancestor waits for a child with wait: true or a healthCheck naming it
// (kustomize-controller checkHealth, internal/controller/kustomization_controller.go, waits
// for every applied object but itself, a child Kustomization's Ready included), and for
// a grandchild through a chain of such waits; provider waits for it when a dependsOn edge
// to it is on provider's path (flux-semantics.md §5: dependsOn requires Ready=True), not
// when the ancestor merely creates provider. Nil when there is none.
func (v *view) waitDeadlock(holder, provider graph.Ref) *graph.Ref {
	seen := map[graph.Ref]bool{}
	child := holder
	for {
		ks := v.c.Kustomizations[child]
		if ks == nil || ks.Parent == nil || seen[*ks.Parent] {
			return nil
		}
		parent := *ks.Parent
		seen[parent] = true
		if !waitsForChild(v.c.Kustomizations[parent], child) {
			return nil
		}
		if v.blockedBy(provider, parent) {
			return &parent
		}
		child = parent
	}
}

// waitsForChild reports whether parent is Ready only once its child Kustomization is.
func waitsForChild(parent *graph.Kustomization, child graph.Ref) bool {
	if parent == nil {
		return false
	}
	if parent.Spec.Wait {
		return true
	}
	for _, hc := range parent.Spec.HealthChecks {
		ns := hc.Namespace
		if ns == "" {
			ns = parent.Ref.Namespace
		}
		if hc.Kind == "Kustomization" && hc.Name == child.Name && ns == child.Namespace {
			return true
		}
	}
	return false
}

// blockedBy reports whether r cannot become Ready before a is Ready: some Kustomization r
// applies after (r itself included) dependsOn a.
func (v *view) blockedBy(r, a graph.Ref) bool {
	for x := range v.c.Kustomizations {
		if hasDep(v.c.Kustomizations[x], a) && v.appliesAfter(r, x) {
			return true
		}
	}
	return false
}
