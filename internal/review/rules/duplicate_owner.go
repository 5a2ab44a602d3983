package rules

import (
	"fmt"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// duplicateOwner reports objects that two Kustomizations emit: each apply takes ownership
// from the other (the kustomize.toolkit.fluxcd.io/name label flips), and whichever prunes
// later deletes the object from under the other (flux-semantics.md §4). An object that one
// and the same ResourceSet renders under both is not reported again: flux-operator applies
// and garbage-collects it once, from that ResourceSet's own inventory
// (internal/controller/resourceset_controller.go ResourceSetReconciler.apply); the finding
// on the ResourceSet is the one conflict. A chart's objects count as their HelmRelease's
// (chartDuplicate). An object the charts of two colliding HelmReleases both render is
// release-collision's (collidingPairs); a third owner of it is still reported. The finding
// is on the owner the change adds (blame), so that it points at what the PR changed.
// Objects two Kustomizations emit from the same manifest file have one cause, the path
// that makes both build it: they are one finding per pair, at that spec.path
// (sharedBuilds.findings), not one per object.
func duplicateOwner(c, other *graph.Cluster, _ *Env) []Finding {
	var out []Finding
	colliding := collidingPairs(c)
	var shared sharedBuilds
	for _, ref := range c.Order {
		for _, o := range c.Kustomizations[ref].Objects {
			owners := c.Owners[o.ID]
			if len(owners) < 2 || owners[0] == o {
				continue
			}
			first, o := blame(other, owners[0], o)
			if o.ResourceSet != "" && o.ResourceSet == first.ResourceSet {
				continue
			}
			if colliding[[2]string{first.HelmRelease, o.HelmRelease}] {
				continue
			}
			if o.HelmRelease != "" || first.HelmRelease != "" {
				if f, ok := chartDuplicate(c, first, o); ok {
					out = append(out, f)
				}
				continue
			}
			if first.File == o.File && first.Owner != o.Owner {
				shared.add(first, o) // one finding per pair, naming the path (sharedBuilds)
				continue
			}
			f := objectFinding("duplicate-owner", Error, c.Name, o, o.Owner)
			f.Message = fmt.Sprintf("%s is emitted by both %s (%s:%d) and %s: the two Kustomizations overwrite each other on every reconcile and either may prune it.",
				o.ID, first.Owner, first.File, first.Line, o.Owner)
			f.Suggestion = fmt.Sprintf("Keep %s in one Kustomization only: remove it from %s or from %s.", o.ID, first.File, o.File)
			out = append(out, f)
		}
	}
	out = append(out, shared.findings(c)...)
	out = append(out, contestedRoot(c)...)
	return append(out, syncCopies(c)...)
}

// blame orders two owners of one identity as (kept, added): the finding goes on added, the
// one the change brings. Without the other commit, or when both or neither are new, the
// build order stands (first, then o).
func blame(other *graph.Cluster, first, o *graph.Object) (*graph.Object, *graph.Object) {
	if other == nil {
		return first, o
	}
	if ownedIn(other, first) || !ownedIn(other, o) {
		return first, o
	}
	return o, first
}

// ownedIn reports whether c has o's identity from the same owner: the same Kustomization's
// own build, the same HelmRelease's chart or the same ResourceSet in it.
func ownedIn(c *graph.Cluster, o *graph.Object) bool {
	for _, p := range c.Owners[o.ID] {
		if p.Owner == o.Owner && p.HelmRelease == o.HelmRelease && p.ResourceSet == o.ResourceSet {
			return true
		}
	}
	return false
}
