package rules

import (
	"fmt"
	"sort"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm"
)

// releaseCollision reports HelmReleases that manage the same Helm release: the same
// release name (spec.releaseName, else [targetNamespace-]name, shortened past 53
// characters; helm.ReleaseOf) in the same storage namespace, where Helm keeps the release
// records. Each HelmRelease finds the other's release in storage and, not having made it
// itself, takes it as unmanaged and upgrades it to its own chart and values (helm-controller
// internal/reconcile/state.go DetermineReleaseState: ReleaseStatusUnmanaged;
// atomic_release.go actionForState: upgrade): they overwrite each other on every
// reconcile, and each upgrade deletes what only the other's chart renders
// (helm-controller#284). The finding is on every HelmRelease after the first, in build
// order, those that the other commit has too coming first: the one a change adds is the
// one reported. The objects both charts render are counted in it, and duplicate-owner does
// not report them again between these two HelmReleases (collidingPairs): one cause.
func releaseCollision(c, other *graph.Cluster, _ *Env) []Finding {
	hrs := helmReleases(c)
	if other != nil {
		before := map[graph.Ref]bool{}
		for _, h := range helmReleases(other) {
			before[h.ref] = true
		}
		sort.SliceStable(hrs, func(i, j int) bool { return before[hrs[i].ref] && !before[hrs[j].ref] })
	}
	first := map[helm.Release]hrNode{}
	var out []Finding
	for _, h := range hrs {
		rel := helm.ReleaseOf(h.o.Body)
		key := helm.Release{Name: rel.Name, StorageNamespace: rel.StorageNamespace}
		prev, ok := first[key]
		if !ok {
			first[key] = h
			continue
		}
		id := h.o.ID
		file, line := releaseFieldLine(c, nil, h.o)
		out = append(out, Finding{
			Rule: "release-collision", Severity: Error, Cluster: c.Name, Kustomization: h.ks.String(), Object: &id,
			Message: fmt.Sprintf("HelmReleases %s and %s (%s:%d) both manage Helm release %q in storage namespace %s: each takes the other's release as unmanaged and upgrades it to its own chart and values, so they overwrite each other on every reconcile and each upgrade deletes what only the other's chart renders.%s",
				h.ref, prev.ref, prev.o.File, prev.o.Line, rel.Name, rel.StorageNamespace, sharedObjects(c, prev.ref.String(), h.ref.String())),
			Suggestion: fmt.Sprintf("Give HelmRelease %s (%s:%d) a release of its own: a distinct spec.releaseName, or another spec.storageNamespace; or remove one of the two.",
				h.ref, h.o.File, h.o.Line),
			File: file, Line: line, key: "release " + rel.StorageNamespace + "/" + rel.Name,
			resolvedAdvice: "Nothing to do: the HelmReleases manage releases of their own at head.",
		})
	}
	return out
}

// sharedObjects says how many objects the charts of HelmReleases a and b ("namespace/name")
// both render, naming the first in build order; "" when none.
func sharedObjects(c *graph.Cluster, a, b string) string {
	n, first := 0, ""
	each(c, func(_ *graph.Kustomization, o *graph.Object) {
		if o.HelmRelease != a {
			return
		}
		for _, p := range c.Owners[o.ID] {
			if p.HelmRelease == b {
				if n == 0 {
					first = o.ID.String()
				}
				n++
				return
			}
		}
	})
	switch n {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf(" Both charts render %s, which the two releases take from each other on every upgrade.", first)
	}
	return fmt.Sprintf(" Both charts render %d objects (%s and %d more), which the two releases take from each other on every upgrade.", n, first, n-1)
}

// collidingPairs is the set of HelmRelease pairs ("namespace/name" of each, in either
// order) that releaseCollision reports: duplicate-owner leaves the objects both charts
// render to that finding.
func collidingPairs(c *graph.Cluster) map[[2]string]bool {
	first := map[helm.Release][]string{}
	for _, h := range helmReleases(c) {
		rel := helm.ReleaseOf(h.o.Body)
		key := helm.Release{Name: rel.Name, StorageNamespace: rel.StorageNamespace}
		first[key] = append(first[key], h.ref.String())
	}
	out := map[[2]string]bool{}
	for _, refs := range first {
		for i := range refs {
			for j := range refs {
				if i != j {
					out[[2]string{refs[i], refs[j]}] = true
				}
			}
		}
	}
	return out
}
