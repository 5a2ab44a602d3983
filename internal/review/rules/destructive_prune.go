package rules

import (
	"fmt"

	"github.com/tiergate/tiergate/internal/render"
)

// destructivePrune reports objects of data-bearing or cascading kinds (Namespace, CRD,
// PersistentVolumeClaim, PersistentVolume, StatefulSet) removed from git under an owner
// that garbage-collects: Flux deletes them, and with a Namespace everything inside it, with a
// CRD every custom resource of that kind (flux-semantics.md §4).
func destructivePrune(base, head *render.Cluster, _ *Env) []Finding {
	if base == nil || head == nil {
		return nil
	}
	var out []Finding
	each(base, func(ks *render.Kustomization, o *render.Object) {
		if !critical(o.ID) || len(head.Owners[o.ID]) > 0 || base.Owners[o.ID][0] != o {
			return
		}
		if protected(o) || !KnownGone(ks.Ref, base, head) || !garbageCollects(ks.Ref, base, head) || renameOnly(o, base, head) != nil {
			return
		}
		f := objectFinding("destructive-prune", Error, head.Name, o, ks.Ref)
		f.Message = fmt.Sprintf("%s is removed from %s, which garbage-collects it: Flux deletes it%s.", o.ID, ks.Ref, consequence(o.ID))
		f.Suggestion = fmt.Sprintf("If %s must survive, first annotate it `kustomize.toolkit.fluxcd.io/prune: disabled` (merged and applied), then remove it from git.", o.ID)
		out = append(out, f)
	})
	return out
}

func consequence(id render.ObjectID) string {
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
	return ""
}
