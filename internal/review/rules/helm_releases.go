package rules

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

const helmGroup = "helm.toolkit.fluxcd.io"

// hrNode is one HelmRelease of the cluster: its object as applied (by a
// Kustomization's build, or by a chart), and the Kustomization that applies it.
type hrNode struct {
	ref graph.Ref // namespace/name
	o   *graph.Object
	ks  graph.Ref
}

// helmReleases lists the cluster's HelmReleases in build order, each once (the first owner
// of a duplicated one: duplicate-owner reports the rest).
func helmReleases(c *graph.Cluster) []hrNode {
	var out []hrNode
	seen := map[graph.Ref]bool{}
	each(c, func(ks *graph.Kustomization, o *graph.Object) {
		if o.ID.Group != helmGroup || o.ID.Kind != "HelmRelease" {
			return
		}
		ref := graph.Ref{Namespace: o.ID.Namespace, Name: o.ID.Name}
		if !seen[ref] {
			seen[ref] = true
			out = append(out, hrNode{ref: ref, o: o, ks: ks.Ref})
		}
	})
	return out
}

// suspended reports spec.suspend: helm-controller's Reconcile returns before anything else
// (HelmReleaseReconciler.Reconcile), dependencies included.
func (h hrNode) suspended() bool {
	s, _, _ := unstructured.NestedBool(h.o.Body.Object, "spec", "suspend")
	return s
}

// dependsOn is spec.dependsOn as helm-controller reads it: each entry's namespace defaults
// to the HelmRelease's own (internal/controller/helmrelease_controller.go checkDependencies).
// Entries without a name are left out (the CRD schema requires one).
func (h hrNode) dependsOn() []graph.Ref {
	list, _, _ := unstructured.NestedSlice(h.o.Body.Object, "spec", "dependsOn")
	var out []graph.Ref
	for _, e := range list {
		m, _ := e.(map[string]any)
		name, _ := m["name"].(string)
		if name == "" {
			continue
		}
		ns, _ := m["namespace"].(string)
		if ns == "" {
			ns = h.ref.Namespace
		}
		out = append(out, graph.Ref{Namespace: ns, Name: name})
	}
	return out
}
