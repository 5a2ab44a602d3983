package rules

import (
	"fmt"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// fluxComponentRemoved reports a component that the cluster's FluxInstance lists at base
// and no longer at head (an entry removed, or a list shrunk to the default set) while the
// cluster at head still has objects of the kinds that component serves (fluxComponent): a
// HelmRelease once helm-controller goes. flux-operator builds only the listed components
// (FluxInstance controller build, options.Components = GetComponents()) and
// garbage-collects what its inventory held that the new build lacks, keeping only objects
// annotated fluxcd.controlplane.io/prune: disabled (fluxinstance_controller.go apply:
// inventory.Diff, then ssa ResourceManager.DeleteAll; the builder puts that annotation on
// the Namespace only, internal/builder/templates.go). The component's manifest holds its
// CRDs, so the controller and its CRDs are deleted; deleting a CRD deletes every object of
// it (apiextensions-apiserver's CRD finalizer, crd_finalizer.go deleteInstances), and each
// then waits on the finalizer of the controller that is gone. One finding per component, at
// the spec.components line, naming a count and the first objects; missing-crd stays silent
// on them.
func fluxComponentRemoved(base, head *graph.Cluster, _ *Env) []Finding {
	bi, hi := clusterFluxInstance(base), clusterFluxInstance(head)
	if bi == nil || hi == nil {
		return nil
	}
	var out []Finding
	for _, comp := range bi.components {
		if hi.has(comp) {
			continue
		}
		ids := servedObjects(head, comp)
		if len(ids) == 0 {
			continue
		}
		out = append(out, Finding{
			key:  comp, // one per component: two removed at once are two findings
			Rule: "flux-component-removed", Severity: Error, Cluster: head.Name,
			Object: &hi.obj.ID, File: hi.obj.File, Line: hi.line(head),
			Message: fmt.Sprintf("FluxInstance %s/%s no longer installs %s (%s), yet cluster %s still has %s of the kinds it serves: %s. "+
				"flux-operator garbage-collects what it applied for %s, the Deployment and its CRDs (only objects annotated fluxcd.controlplane.io/prune: disabled are kept); "+
				"deleting a CRD deletes all its objects, and each then waits on the finalizer of a controller that no longer runs: they are never reconciled again "+
				"(left deleting, or, where %s still runs when the deletion reaches them, finalized as on any deletion: a HelmRelease uninstalled, a Kustomization's inventory pruned), and the Kustomizations that apply them fail on the kind from then on.",
				hi.obj.ID.Namespace, hi.obj.ID.Name, comp, componentsNow(hi), head.Name, plural(len(ids), "object"), sample(ids), comp, comp),
			Suggestion: fmt.Sprintf("Keep %s in %s of %s (%s:%d) until cluster %s has none of these objects: remove them from git in an earlier merge, then drop the component.",
				comp, instanceField(hi.obj, "components"), instanceName(hi.obj), hi.obj.File, hi.line(head), head.Name),
		})
	}
	return out
}

// componentsNow says what the FluxInstance installs: "its spec.components lists a and b",
// or the default set.
func componentsNow(fi *fluxInstance) string {
	if fi.listed {
		return "its " + instanceField(fi.obj, "components") + " lists " + joinAnd(fi.components)
	}
	return "it has no " + instanceField(fi.obj, "components") + ", which is the default set " + joinAnd(fi.components)
}

// servedObjects lists, by file and line, the objects of c whose kind comp serves.
func servedObjects(c *graph.Cluster, comp string) []string {
	var ids []string
	for _, o := range sortedObjects(c) {
		if fluxComponent(o.ID.Group, o.ID.Kind) == comp {
			ids = append(ids, o.ID.String())
		}
	}
	return ids
}

// removedComponent reports whether the change from base to head drops comp from the
// cluster's FluxInstance (fluxComponentRemoved's case).
func removedComponent(base, head *graph.Cluster, comp string) bool {
	bi, hi := clusterFluxInstance(base), clusterFluxInstance(head)
	return bi != nil && hi != nil && bi.has(comp) && !hi.has(comp)
}
