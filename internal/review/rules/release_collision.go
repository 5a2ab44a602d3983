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
// one reported.
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
		out = append(out, Finding{
			Rule: "release-collision", Severity: Error, Cluster: c.Name, Kustomization: h.ks.String(), Object: &id,
			Message: fmt.Sprintf("HelmReleases %s and %s (%s:%d) both manage Helm release %q in storage namespace %s: each takes the other's release as unmanaged and upgrades it to its own chart and values, so they overwrite each other on every reconcile and each upgrade deletes what only the other's chart renders.",
				h.ref, prev.ref, prev.o.File, prev.o.Line, rel.Name, rel.StorageNamespace),
			Suggestion: fmt.Sprintf("Give HelmRelease %s (%s:%d) a release of its own: a distinct spec.releaseName, or another spec.storageNamespace; or remove one of the two.",
				h.ref, h.o.File, h.o.Line),
			File: h.o.File, Line: h.o.Line, key: "release " + rel.StorageNamespace + "/" + rel.Name,
			resolvedAdvice: "Nothing to do: the HelmReleases manage releases of their own at head.",
		})
	}
	return out
}
