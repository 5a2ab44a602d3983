package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// protected reports whether the live object is excluded from garbage collection: Flux reads
// the exclusion from the object in the cluster, i.e. as applied at base (ssa DeleteAll,
// flux-semantics.md §4).
func protected(o *graph.Object) bool {
	return annotated(o, "kustomize.toolkit.fluxcd.io/prune", "disabled") ||
		annotated(o, "kustomize.toolkit.fluxcd.io/reconcile", "disabled") ||
		annotated(o, "kustomize.toolkit.fluxcd.io/ssa", "Ignore")
}

// garbageCollects reports whether the base owner ref deletes its stale objects once head is
// applied: by prune when it still exists, is not suspended and does not fail at head (a
// failed apply prunes nothing, flux-semantics.md §3), or by its finalizer when it is deleted
// (deletionPolicy MirrorPrune follows prune; Delete and WaitForTermination always delete;
// Orphan never). A removed Kustomization that its parent keeps (keptReason) is not
// deleted: it keeps pruning with its last spec while its folder holds manifests.
func garbageCollects(ref graph.Ref, base, head *graph.Cluster) bool {
	b := base.Kustomizations[ref]
	if h := head.Kustomizations[ref]; h != nil {
		if h.Err != nil {
			return false
		}
		if b.Parent == nil {
			// The root applies its own new spec during the reconcile that runs the old one.
			return b.Spec.Prune && !b.Spec.Suspend
		}
		// Either spec may be the one in force when the owner reconciles the new revision
		// (gcRace says so in the finding).
		return (h.Spec.Prune || b.Spec.Prune) && !(h.Spec.Suspend && b.Spec.Suspend)
	}
	if keptReason(ref, base, head) != "" {
		return keptPrunes(b, head)
	}
	switch b.Spec.DeletionPolicy {
	case "Delete", "WaitForTermination":
		return true
	case "Orphan":
		return false
	}
	return b.Spec.Prune && !b.Spec.Suspend
}

// KnownGone reports whether what base Kustomization ref emitted and head lacks is really
// gone: ref rendered completely at head (or lacks only remote content the base lacked
// too), or ref is absent at head and its parent is known complete there. A build error or
// an unrendered part at head hides, not removes.
func KnownGone(ref graph.Ref, base, head *graph.Cluster) bool {
	if h := head.Kustomizations[ref]; h != nil {
		return complete(h) || sameRemotes(base.Kustomizations[ref], h)
	}
	b := base.Kustomizations[ref]
	if b == nil || b.Parent == nil {
		return false
	}
	return KnownGone(*b.Parent, base, head) && head.Kustomizations[*b.Parent] != nil
}

// sameRemotes reports whether head h is incomplete only by remote resources that base b
// also left unfetched. Every object b rendered then came from the repository: the remote
// content holding it too would have failed b's build (kustomize api/resmap reswrangler.go
// Append: "may not add resource with an already registered id"), so, the same URLs
// serving the same content at head, an object h lacks is gone.
func sameRemotes(b, h *graph.Kustomization) bool {
	built := func(ks *graph.Kustomization) bool { return ks.Err == nil && ks.Skipped == "" && ks.NeedsRemote == "" }
	if b == nil || !built(b) || !built(h) {
		return false
	}
	for _, u := range h.Remote {
		if !slices.Contains(b.Remote, u) {
			return false
		}
	}
	return true
}

// critical reports kinds whose deletion takes data or other objects with it.
func critical(id graph.ObjectID) bool {
	return criticalKinds[id.Group+"/"+id.Kind] || dataBearingKinds[id.Group+"/"+id.Kind]
}

// transientCritical adds the Flux Kustomization to critical: deleted and re-created in a
// move, its finalizer garbage-collects its whole inventory in between. (Its removal from
// git is reported through the critical objects it held.)
// A HelmRelease too: helm-controller's finalizer uninstalls its release in between.
func transientCritical(id graph.ObjectID) bool {
	return critical(id) || isFluxKustomization(id) || id.Group == helmReleaseGroup && id.Kind == "HelmRelease"
}

func isFluxKustomization(id graph.ObjectID) bool {
	return id.Group == "kustomize.toolkit.fluxcd.io" && id.Kind == "Kustomization"
}

func pruneSuggestion(o *graph.Object, old graph.Ref) string {
	return "Merge the move in two steps: first add the annotation `kustomize.toolkit.fluxcd.io/prune: disabled` to " +
		o.ID.String() + " in " + o.File + " and let Flux apply it, then move it (and drop the annotation later). " +
		"Or set `prune: false` on Kustomization " + old.String() + ", merge, move the object, then restore `prune: true`."
}

// renameOnly finds, for an object removed at head, the head object of the same owner,
// kind and file whose identity changed only because the owner's targetNamespace,
// namePrefix or nameSuffix changed: Flux applies the new one and prunes the old one.
func renameOnly(o *graph.Object, base, head *graph.Cluster) *graph.Object {
	b, h := base.Kustomizations[o.Owner], head.Kustomizations[o.Owner]
	if h == nil || !identityFieldsChanged(b, h) {
		return nil
	}
	for _, n := range h.Objects {
		if n.ID.Group == o.ID.Group && n.ID.Kind == o.ID.Kind && n.File == o.File && n.Line == o.Line && len(base.Owners[n.ID]) == 0 {
			return n
		}
	}
	return nil
}

func identityFieldsChanged(b, h *graph.Kustomization) bool {
	_, _, ok := changedIdentityField(b, h)
	return ok
}

// identityFields are the Kustomization spec fields that rename every object of its build
// (kustomize-controller passes them to the generated kustomization.yaml: fluxcd/pkg
// kustomize Generator).
var identityFields = []string{"targetNamespace", "namePrefix", "nameSuffix"}

// changedIdentityField returns the first identity field whose value differs between b and h
// (the base and head of one Kustomization), and the change as "app → app-v2" ("unset" for
// a field one side lacks).
func changedIdentityField(b, h *graph.Kustomization) (field, change string, ok bool) {
	x, _ := b.Body.Object["spec"].(map[string]any)
	y, _ := h.Body.Object["spec"].(map[string]any)
	show := func(v any) string {
		if v == nil {
			return "unset"
		}
		return fmt.Sprint(v)
	}
	for _, f := range identityFields {
		if x[f] != y[f] {
			return f, show(x[f]) + " → " + show(y[f]), true
		}
	}
	return "", "", false
}

// identityChange says which identity field of Kustomization ref changes between base and
// head ("spec.targetNamespace of flux-system/apps changes (app → app-v2)") and locates it:
// the field's line in the head manifest, the line the PR changes, or its `spec:` line when
// the change removes the field. ok is false when no identity field changes.
func identityChange(ref graph.Ref, base, head *graph.Cluster) (what, file string, line int, ok bool) {
	b, h := base.Kustomizations[ref], head.Kustomizations[ref]
	if b == nil || h == nil || b.Body == nil || h.Body == nil {
		return "", "", 0, false
	}
	field, change, ok := changedIdentityField(b, h)
	if !ok {
		return "", "", 0, false
	}
	line, _ = keyLine(head, h.File, h.Line, "spec", field)
	return fmt.Sprintf("spec.%s of %s changes (%s)", field, ref, change), h.File, line, true
}

// applied returns the objects of the cluster with that id whose Kustomization applies them,
// in build order: one that fails applies nothing (flux-semantics.md §3), so its objects
// are not taken over from their old owner.
func applied(c *graph.Cluster, id graph.ObjectID) []*graph.Object {
	var out []*graph.Object
	for _, o := range c.Owners[id] {
		if ks := c.Kustomizations[o.Owner]; ks != nil && ks.Err == nil {
			out = append(out, o)
		}
	}
	return out
}

// gcRace says, for Kustomization ref whose garbage collection deletes an object in a
// finding, that the change also flips ref's `prune` or `suspend` ("" when it does not, or
// ref is the root): its parent applies the new spec in its own reconcile, while ref
// reconciles the new revision on its own (kustomize-controller
// internal/controller/kustomization_indexers.go requestsForRevisionChangeOf), so either
// spec may be in force. kustomize-controller prunes under the spec it reconciles with, and
// records the new inventory whatever the prune setting (kustomization_controller.go
// reconcileResources: Status.Inventory set before prune, which returns early when
// !Spec.Prune), so under prune off the object leaves the inventory and stays. first is the
// advice to merge the setting alone beforehand.
//
// When ref itself is gone at head, its parent's garbage collection deletes it (and ref's
// finalizer its inventory): a flip on that parent is the race.
func gcRace(ref graph.Ref, base, head *graph.Cluster) (why, first string) {
	return gcRaceOf(ref, "it", base, head)
}

// gcRaceOf is gcRace for what ref's garbage collection deletes, named what in the message.
func gcRaceOf(ref graph.Ref, what string, base, head *graph.Cluster) (why, first string) {
	b, h := base.Kustomizations[ref], head.Kustomizations[ref]
	if b == nil || b.Parent == nil {
		return "", ""
	}
	if h == nil {
		return gcRaceOf(*b.Parent, "Kustomization "+ref.String()+" (whose finalizer then garbage-collects its inventory)", base, head)
	}
	set, was, ok := specFlip(b, h)
	if !ok {
		return "", ""
	}
	why = fmt.Sprintf(" This change also sets `%s` on %s (it was `%s`), and its parent %s applies that spec in its own reconcile, before or after %s reconciles this revision with its old spec: "+
		"whether %s garbage-collects %s is a race (kustomize-controller prunes under the spec it reconciles with; with prune off it drops the object from its inventory and leaves it in the cluster).",
		set, ref, was, *b.Parent, ref, ref, what)
	outcome := "deletes nothing"
	if h.Spec.Prune && !h.Spec.Suspend {
		outcome = "deletes it for certain"
	}
	first = fmt.Sprintf("Merge `%s` on Kustomization %s first, in its own PR, and let Flux apply it; then the rest of this change, which then %s. ", set, ref, outcome)
	return why, first
}

// specFlip is the garbage-collection setting a change flips on a Kustomization, b at base
// and h at head, as the head sets it and as it was ("prune: false", "prune: true"); false
// when neither prune nor suspend changes.
func specFlip(b, h *graph.Kustomization) (set, was string, ok bool) {
	switch {
	case b.Spec.Prune != h.Spec.Prune:
		return fmt.Sprintf("prune: %t", h.Spec.Prune), fmt.Sprintf("prune: %t", b.Spec.Prune), true
	case b.Spec.Suspend != h.Spec.Suspend:
		return fmt.Sprintf("suspend: %t", h.Spec.Suspend), fmt.Sprintf("suspend: %t", b.Spec.Suspend), true
	}
	return "", "", false
}

// withGCRace adds gcRace's sentence and advice to f, a finding on an object that
// Kustomization ref's garbage collection deletes.
func withGCRace(f Finding, ref graph.Ref, base, head *graph.Cluster) Finding {
	if why, first := gcRace(ref, base, head); why != "" {
		f.Message += why
		f.Suggestion = first + "Otherwise, " + lowerFirst(f.Suggestion)
	}
	return f
}

// lowerFirst lowers s's first letter, to continue a sentence with it.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
