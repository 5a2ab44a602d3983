package rules

import (
	"fmt"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// renameSuggestion is prune-transient's suggestion for old, an object of base that becomes
// n only because its Kustomization's targetNamespace, namePrefix or nameSuffix changes
// (what says which field) in owner: nobody moves it, so "move it" means nothing. The new identity
// is a new object whatever the order; what can be avoided is the prune of the old one.
// kustomize-controller skips, when it prunes, a live object annotated
// `kustomize.toolkit.fluxcd.io/prune: disabled` (fluxcd/pkg ssa DeleteAll with the
// controller's exclusions, flux-semantics.md §4), and replaces the inventory with what it
// applied either way, so the old object then stays in the cluster outside any inventory:
// someone deletes it by hand once its replacement serves. A Flux Kustomization is
// different: the parent prunes the old one, and its finalizer garbage-collects its
// inventory under its own prune and deletionPolicy (MirrorPrune by default:
// kustomize-controller finalize), so `prune: false` on it first lets the new one take its
// objects over (Flux FAQ "How can I safely rename a Flux Kustomization?").
func renameSuggestion(old, n *graph.Object, owner graph.Ref, what string) string {
	change := "merge the change of " + fieldOf(what)
	if isFluxKustomization(old.ID) {
		return fmt.Sprintf("Nothing moves Kustomization %s/%s: its new identity comes from the %s. Merge it in two steps: first set `prune: false` in the spec of Kustomization %s/%s (%s:%d) and let Flux apply it, then %s: the parent prunes the old Kustomization, whose finalizer then deletes nothing (its deletionPolicy is MirrorPrune unless set), and %s/%s applies the same objects and takes them over. Restore `prune: true` afterwards.",
			old.ID.Namespace, old.ID.Name, fieldOf(what), old.ID.Namespace, old.ID.Name, old.File, old.Line, change, n.ID.Namespace, n.ID.Name)
	}
	return fmt.Sprintf("Nothing moves %s: its new identity comes from the %s, and the new object is created whatever the order. To keep the old one from being pruned first, merge it in two steps: add the annotation `kustomize.toolkit.fluxcd.io/prune: disabled` to %s in %s and let Flux apply it, then %s. Flux creates %s and leaves %s in the cluster, outside its inventory: %s (and drop the annotation then). Or set `prune: false` on Kustomization %s for that merge and restore `prune: true` after it: the old object stays the same way.",
		old.ID, fieldOf(what), old.ID, old.File, change, n.ID, old.ID, leftOver(old.ID, n.ID), owner)
}

// leftOver says what to do with the old object a rename leaves: delete it by hand once the
// new one serves, but for the kinds whose deletion takes other objects with it (a
// Namespace everything in it, a CRD every custom resource of its kind: the API server's
// namespace and CRD finalizers), which the user weighs, and a CRD is never advised.
func leftOver(old, n graph.ObjectID) string {
	switch {
	case isCRD(old):
		return fmt.Sprintf("leave %s: deleting a CRD makes the API server delete every custom resource of its kind", old)
	case old.Group == "" && old.Kind == "Namespace":
		return fmt.Sprintf("delete %s by hand only once nothing in it is needed, since deleting a Namespace deletes every object in it", old)
	case old.Group == "" && old.Kind == "PersistentVolumeClaim":
		return fmt.Sprintf("delete %s by hand only once its data is no longer needed (under the usual Delete reclaim policy its volume goes with it)", old)
	}
	return fmt.Sprintf("delete %s by hand once %s serves", old, n)
}

// fieldOf is "spec.targetNamespace of flux-system/a" from identityChange's what.
func fieldOf(what string) string {
	if i := strings.Index(what, " changes"); i > 0 {
		return what[:i]
	}
	return what
}
