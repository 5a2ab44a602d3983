package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// keptReason says why base Kustomization ref, which no build emits at head, stays in the
// cluster, or "" when Flux deletes it. kustomize-controller deletes a Kustomization object
// that leaves its parent only through the parent's garbage collection (ssa DeleteAll over
// the parent's stale inventory, with the exclusions of protected), so a parent that does
// not prune (prune: false, suspended, failing, or itself kept without pruning) or a child
// annotated kustomize.toolkit.fluxcd.io/prune: disabled leaves the old Kustomization
// running with its last spec against every new revision (thaum-xyz/ankhmorpork#1366).
func keptReason(ref graph.Ref, base, head *graph.Cluster) string {
	b := base.Kustomizations[ref]
	if b == nil || b.Parent == nil || head.Kustomizations[ref] != nil {
		return ""
	}
	p := *b.Parent
	id := graph.ObjectID{Group: "kustomize.toolkit.fluxcd.io", Kind: "Kustomization", Namespace: ref.Namespace, Name: ref.Name}
	for _, o := range base.Owners[id] {
		if o.Owner == p && protected(o) {
			return fmt.Sprintf("Kustomization %s is excluded from %s's garbage collection (kustomize.toolkit.fluxcd.io/prune: disabled), so it stays in the cluster", ref, p)
		}
	}
	if !garbageCollects(p, base, head) {
		return fmt.Sprintf("its parent %s does not prune, so Kustomization %s stays in the cluster", p, ref)
	}
	return ""
}

// keptPrunes reports whether kept Kustomization b (keptReason) still deletes objects that
// left its folder: it reconciles its last spec, prunes if that spec does, and builds only
// while its path still holds manifests at head (a missing path fails the build, and a
// failed build prunes nothing, flux-semantics.md §3). The folder counts as held when the
// head tree has a YAML file in it (for the cluster's root source, whose tree this is), or
// a Kustomization of the same source builds in it or an object of one comes from it.
func keptPrunes(b *graph.Kustomization, head *graph.Cluster) bool {
	if !b.Spec.Prune || b.Spec.Suspend {
		return false
	}
	if root := head.Kustomizations[head.Root]; root != nil && root.Spec.SourceRef == b.Spec.SourceRef && head.HoldsManifests(b.Spec.Path) {
		return true
	}
	for _, ref := range head.Order {
		h := head.Kustomizations[ref]
		if h.Spec.SourceRef != b.Spec.SourceRef {
			continue
		}
		if underPath(cleanRel(h.Spec.Path)+"/x", b.Spec.Path) {
			return true
		}
		for _, o := range h.Objects {
			if o.HelmRelease == "" && underPath(o.File, b.Spec.Path) {
				return true
			}
		}
	}
	return false
}

// underPath reports whether repo-relative file lies in folder dir (a Kustomization path,
// "./apps" or "apps/").
func underPath(file, dir string) bool {
	d := cleanRel(dir)
	return d == "" || strings.HasPrefix(cleanRel(file), d+"/")
}

func cleanRel(p string) string { return strings.TrimPrefix(path.Clean("/"+p), "/") }
