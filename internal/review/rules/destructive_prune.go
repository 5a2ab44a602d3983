package rules

import (
	"fmt"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// destructivePrune reports objects of data-bearing or cascading kinds (Namespace, CRD,
// PersistentVolumeClaim, PersistentVolume, StatefulSet, the database custom resources of
// dataBearingKinds) removed from git under an owner that garbage-collects: Flux deletes
// them, and with a Namespace everything inside it, with a CRD every custom resource of that
// kind (flux-semantics.md §4). A chart's object is deleted by its release's upgrade
// (helmDeletes); a volume whose reclaim policy is Retain keeps its data (retainedBy): a
// notice.
func destructivePrune(base, head *graph.Cluster, _ *Env) []Finding {
	if base == nil || head == nil {
		return nil
	}
	var out []Finding
	each(base, func(ks *graph.Kustomization, o *graph.Object) {
		if !critical(o.ID) || len(applied(head, o.ID)) > 0 || base.Owners[o.ID][0] != o {
			return
		}
		switch {
		case o.HelmRelease != "":
			// An uninstall is helm-uninstall's finding; only an upgrade deletes here.
			if helmDeletes(o, base, head) != "upgrade" {
				return
			}
		case o.ResourceSet != "":
			if resourceSetKept(o) || resourceSetUnknown(o, ks.Ref, head) || !KnownGone(ks.Ref, base, head) || renameOnly(o, base, head) != nil {
				return
			}
		case protected(o) || !KnownGone(ks.Ref, base, head) || !garbageCollects(ks.Ref, base, head) || renameOnly(o, base, head) != nil:
			return
		}
		sev, retained := Error, retainedBy(o, base)
		if retained != "" {
			sev = Notice
		}
		f := objectFinding("destructive-prune", sev, head.Name, o, ks.Ref)
		f.Message = fmt.Sprintf("%s is removed from %s, which garbage-collects it: Flux deletes it%s.", o.ID, ks.Ref, consequence(o.ID))
		f.Suggestion = fmt.Sprintf("If %s must survive, first annotate it `kustomize.toolkit.fluxcd.io/prune: disabled` (merged and applied), then remove it from git.", o.ID)
		if o.HelmRelease != "" {
			f.Message = fmt.Sprintf("%s is no longer rendered by the chart of HelmRelease %s (applied by %s): the release's upgrade deletes it%s.", o.ID, o.HelmRelease, ks.Ref, consequence(o.ID))
			f.Suggestion = fmt.Sprintf("If %s must survive, first add the annotation `helm.sh/resource-policy: keep` to it in the chart (template %s) and let helm-controller upgrade the release, then remove it.", o.ID, o.Template)
		}
		if retained != "" {
			f.Message = fmt.Sprintf("%s is removed from %s, which garbage-collects it: Flux deletes the object, but %s.", o.ID, ks.Ref, retained)
			f.Suggestion = "No data is lost: delete or re-bind the released PersistentVolume by hand when it is no longer needed. " + f.Suggestion
		}
		if o.ResourceSet != "" {
			f.Message = fmt.Sprintf("%s is no longer rendered by ResourceSet %s (applied by %s), which garbage-collects it: flux-operator deletes it%s.", o.ID, o.ResourceSet, ks.Ref, consequence(o.ID))
			f.Suggestion = fmt.Sprintf("If %s must survive, first render it with the annotation `fluxcd.controlplane.io/prune: disabled` (merged and applied), then remove it from the ResourceSet.", o.ID)
		}
		if o.HelmRelease == "" && o.ResourceSet == "" {
			f = withGCRace(f, ks.Ref, base, head)
		}
		if failing := failedParents(head); len(failing) > 0 {
			f.Message += fmt.Sprintf(" %s fails at head and applies nothing, so no Kustomization it adds or changes takes the object over.", strings.Join(failing, ", "))
			f.Suggestion = fmt.Sprintf("Fix the render-error of %s first. %s", strings.Join(failing, ", "), f.Suggestion)
		}
		out = append(out, f)
	})
	return out
}

func consequence(id graph.ObjectID) string {
	switch id.Kind {
	case "Namespace":
		return " and everything in Namespace " + id.Name + ", whoever owns it"
	case "CustomResourceDefinition":
		return " and every custom resource of that kind"
	case "PersistentVolumeClaim":
		return "; under the usual Delete reclaim policy its volume and data go too"
	case "PersistentVolume":
		return " and possibly the data on it"
	case "StatefulSet":
		return ", stopping its pods"
	}
	if dataBearingKinds[id.Group+"/"+id.Kind] {
		return ": its operator tears down the database or storage cluster it runs, and the volumes it owns go with it"
	}
	return ""
}

// failedParents lists the Kustomizations of head that fail while emitting Kustomizations
// (or did at base, which their PriorSpec children show), in build order: the head specs of
// their children are not applied.
func failedParents(head *graph.Cluster) []string {
	var out []string
	for _, ref := range head.Order {
		if ks := head.Kustomizations[ref]; ks.Err != nil && emitsKustomizations(head, ks) {
			out = append(out, ref.String())
		}
	}
	return out
}

// emitsKustomizations reports whether ks emits Flux Kustomizations at head, or keeps ones
// it emitted at base (PriorSpec children).
func emitsKustomizations(head *graph.Cluster, ks *graph.Kustomization) bool {
	for _, o := range ks.Objects {
		if isFluxKustomization(o.ID) {
			return true
		}
	}
	for _, c := range head.Kustomizations {
		if c.PriorSpec && *c.Parent == ks.Ref {
			return true
		}
	}
	return false
}

// resourceSetKept reports whether flux-operator's garbage collection leaves the object a
// ResourceSet rendered: ResourceSetReconciler.apply deletes every stale object except those
// annotated fluxcd.controlplane.io/prune: disabled, whatever the Kustomization's prune.
func resourceSetKept(o *graph.Object) bool {
	return o.Body.GetAnnotations()["fluxcd.controlplane.io/prune"] == "disabled"
}

// resourceSetUnknown reports whether the ResourceSet that rendered o is not rendered at
// head (its inputs need a live service): what it applies there is unknown, not gone.
func resourceSetUnknown(o *graph.Object, owner graph.Ref, head *graph.Cluster) bool {
	h := head.Kustomizations[owner]
	if h == nil {
		return false
	}
	for _, s := range h.ResourceSetSkipped {
		if s.ResourceSet.Namespace+"/"+s.ResourceSet.Name == o.ResourceSet {
			return true
		}
	}
	return false
}
