package rules

import (
	"fmt"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// tierMove notes every object whose owner changes: Flux relabels it to the new owner and
// the old owner's inventory drops it (flux-semantics.md §4).
func tierMove(base, head *graph.Cluster, _ *Env) []Finding {
	var out []Finding
	for _, m := range Moves(base, head) {
		f := objectFinding("tier-move", Notice, head.Name, m.head, m.head.Owner)
		f.Message = fmt.Sprintf("%s moves from Kustomization %s to %s.", m.Object, Owner(m.From, m.FromHelmRelease), Owner(m.To, m.ToHelmRelease))
		f.Suggestion = "No action needed if the move is intended: a move that deletes the object on the way is reported as prune-transient, or helm-uninstall for a chart."
		if createdNamespace(m.base) && m.ToHelmRelease == "" {
			createdNamespaceTaken(&f, m, head)
		}
		out = append(out, f)
	}
	return out
}

// createdNamespaceTaken words f for the Namespace of install.createNamespace (never a
// release object: helm pkg/action/install.go creates it apart from the manifest, and
// neither the upgrade nor the uninstall deletes it) that Kustomization m.To now applies: that
// Kustomization owns it from now on, and with prune its garbage collection deletes it, with
// everything in it, once the manifest goes (fluxcd/pkg ssa ResourceManager.DeleteAll over
// the stale inventory, flux-semantics.md §4).
func createdNamespaceTaken(f *Finding, m Move, head *graph.Cluster) {
	f.Message = fmt.Sprintf("%s, which install.createNamespace of HelmRelease %s created outside its release, is now applied by Kustomization %s, which owns it from now on: ",
		m.Object, m.FromHelmRelease, m.To)
	f.Suggestion = fmt.Sprintf("No action needed if %s is meant to own %s", m.To, m.Object)
	if ks := head.Kustomizations[m.head.Owner]; ks != nil && ks.Spec.Prune {
		f.Message += "it has prune enabled, so removing this manifest later deletes the Namespace and everything in it (Helm never deleted it)."
		f.Suggestion += "; to keep it beyond a later removal of the manifest, annotate it `kustomize.toolkit.fluxcd.io/prune: disabled`."
		return
	}
	f.Message += "it does not prune, so removing this manifest later leaves the Namespace in the cluster."
	f.Suggestion += "."
}
