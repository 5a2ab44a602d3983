package rules

import (
	"fmt"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// pruneTransient reports moved objects that Flux deletes and re-creates. The old owner
// garbage-collects the object if it reconciles while the object still carries its labels,
// i.e. before the new owner has applied it (flux-semantics.md §4 table):
//   - certain: the new owner has a dependsOn path to the old one (same source: it waits for
//     the old one to apply this revision) or is its descendant;
//   - race: neither reaches the other, or the old owner is deleted or renamed;
//   - safe: the old owner has a dependsOn path to the new one, or the new owner is its
//     ancestor (the parent applies the object before the child reconciles).
//
// Also an identity change that comes only from targetNamespace, namePrefix or nameSuffix:
// the owner applies the new object and prunes the old. Moves into or out of a chart are
// helmTransient's; a move out of a removed Kustomization its parent keeps, whose folder
// still holds the object, is keptFight's duplicate-owner. A HelmRelease deleted on the way
// (moved or renamed) and its chart's objects are helm-uninstall's: one cause, one finding.
func pruneTransient(base, head *graph.Cluster, env *Env) []Finding {
	if base == nil || head == nil {
		return nil
	}
	hv := env.view(head)
	var out []Finding
	for _, m := range Moves(base, head) {
		if m.FromHelmRelease != "" || m.ToHelmRelease != "" {
			if f, ok := helmTransient(m, base, head, hv); ok {
				out = append(out, f)
			}
			continue
		}
		old := m.base.Owner
		if protected(m.base) {
			continue
		}
		if f, ok := keptFight(head.Name, m, base, head); ok {
			out = append(out, f)
			continue
		}
		if isHelmRelease(m.head) {
			continue // deleted, its release is uninstalled: helm-uninstall's (moveReason)
		}
		if mode := gcMode(m, base, head, hv); mode != "" {
			f := withGCRace(transient(head.Name, base, m.head, old, m.base, mode), old, base, head)
			if msg, ok := flipMove(m, base, head, mode); ok {
				f.Message = msg
			}
			out = append(out, f)
		}
	}
	each(base, func(ks *graph.Kustomization, o *graph.Object) {
		// A chart's object is the release's, not in Flux's inventory, and a HelmRelease's
		// deletion is an uninstall: both are helm-uninstall's.
		if o.HelmRelease != "" || isHelmRelease(o) {
			return
		}
		if len(head.Owners[o.ID]) > 0 || protected(o) || !garbageCollects(ks.Ref, base, head) {
			return
		}
		if n := renameOnly(o, base, head); n != nil {
			f := transient(head.Name, base, n, ks.Ref, o, "")
			// The cause is the Kustomization's field, the line the PR changes; the object's
			// own file may be untouched, so the message names it.
			what, file, line, _ := identityChange(ks.Ref, base, head)
			f.File, f.Line = file, line
			f.Message = fmt.Sprintf("%s (%s:%d) becomes %s because %s: Flux creates %s from git and prunes %s: %s.", o.ID, n.File, n.Line, n.ID, what, n.ID, o.ID, recreateLoss(o, base, head, true))
			f.Suggestion = renameSuggestion(o, n, ks.Ref, what)
			out = append(out, withGCRace(f, ks.Ref, base, head))
		}
	})
	return out
}

// gcMode says whether and how m's old owner deletes the moved object (race), "" when it
// does not: it does not garbage-collect, or the order is safe. A new owner that applies
// with `ssa: IfNotPresent` never takes the object over, so the old one always prunes it.
func gcMode(m Move, base, head *graph.Cluster, hv *view) string {
	old, to := m.base.Owner, m.head.Owner
	if !garbageCollects(old, base, head) {
		return ""
	}
	if annotated(m.head, "kustomize.toolkit.fluxcd.io/ssa", "IfNotPresent") {
		return fmt.Sprintf("%s applies it with `ssa: IfNotPresent`, so it never takes over the existing object, which keeps %s's labels and is pruned (certain)", to, old)
	}
	return race(hv, base, head, old, to)
}

// race classifies the move old → to at head: "" when safe.
func race(hv *view, base, head *graph.Cluster, old, to graph.Ref) string {
	h := head.Kustomizations[old]
	if h == nil {
		if b := base.Kustomizations[old]; b.Parent != nil && *b.Parent == to {
			return "" // the parent applies the object before it prunes the child
		}
		if why := keptReason(old, base, head); why != "" {
			return fmt.Sprintf("%s; it keeps reconciling its last spec and prunes what left its folder, while %s may not have applied it yet (a race)", why, to)
		}
		return fmt.Sprintf("%s is deleted or renamed at head, so its finalizer garbage-collects its inventory while %s may not have applied yet (a race)", old, to)
	}
	sameSource := h.Spec.SourceRef == head.Kustomizations[to].Spec.SourceRef
	switch {
	case hv.ancestor(old, to):
		return fmt.Sprintf("%s is a descendant of %s, which prunes before %s reconciles (certain)", to, old, to)
	case sameSource && hv.dependsOnPath(to, old):
		return fmt.Sprintf("%s has a dependsOn path to %s, so %s always prunes first (certain)", to, old, old)
	case hv.ancestor(to, old), sameSource && hv.dependsOnPath(old, to):
		return ""
	case hv.dependsOnPath(to, old) || hv.dependsOnPath(old, to):
		return fmt.Sprintf("%s and %s are ordered by dependsOn but use different sources, so Flux does not wait for the same revision (a race)", old, to)
	}
	return fmt.Sprintf("neither %s nor %s depends on the other, so whichever reconciles first wins (a race)", old, to)
}

func transient(cluster string, base *graph.Cluster, at *graph.Object, old graph.Ref, baseObj *graph.Object, why string) Finding {
	sev := Warning
	if transientCritical(at.ID) {
		sev = Error
	}
	f := objectFinding("prune-transient", sev, cluster, at, old)
	f.Message = fmt.Sprintf("%s leaves %s, which has prune enabled: %s. Flux deletes the object and re-creates it from git (new UID): %s.", at.ID, old, why, recreateLoss(baseObj, base, nil, false))
	f.Suggestion = pruneSuggestion(baseObj, old)
	return f
}

// flipMove is the message for move m when the change also flips prune or suspend on the
// old owner, which still exists at head: its parent applies the new spec in its own reconcile
// while the old owner reconciles this revision on its own (gcRace), so whether it deletes the
// object is that race whatever the order of the two owners, which mode (gcMode) gives under
// the spec that garbage-collects. kustomize-controller prunes under the spec it reconciles
// with (kustomization_controller.go reconcileResources: the inventory is recorded, then prune
// returns early when !Spec.Prune); a suspended one does not reconcile at all (Reconcile).
func flipMove(m Move, base, head *graph.Cluster, mode string) (string, bool) {
	old, to := m.base.Owner, m.head.Owner
	b, h := base.Kustomizations[old], head.Kustomizations[old]
	if b == nil || h == nil || b.Parent == nil {
		return "", false
	}
	set, was, ok := specFlip(b, h)
	if !ok {
		return "", false
	}
	gc, other, keeps := was, set, fmt.Sprintf("%s drops it from its inventory and leaves it in the cluster, and %s takes it over", old, to)
	if h.Spec.Prune && !h.Spec.Suspend {
		gc, other = set, was
	}
	if strings.HasPrefix(other, "suspend") {
		keeps = fmt.Sprintf("%s does not reconcile, so it deletes nothing, and %s takes it over", old, to)
	}
	mode = strings.TrimSuffix(strings.TrimSuffix(mode, " (certain)"), " (a race)")
	return fmt.Sprintf("%s leaves %s, and this change also sets `%s` on %s (it was `%s`): whether %s deletes it is a race between the flip and the move. "+
		"Its parent %s applies the new spec in its own reconcile, before or after %s reconciles this revision with its old spec, and kustomize-controller prunes under the spec it reconciles with. "+
		"Under `%s`, %s: Flux deletes the object and re-creates it from git (new UID): %s. Under `%s`, %s.",
		m.head.ID, old, set, old, was, old, *b.Parent, old, gc, mode, recreateLoss(m.base, base, head, false), other, keeps), true
}
