package rules

import (
	"sort"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// Renames maps each base Kustomization that the change renames to its head name: a base
// Kustomization absent at head matches the one head Kustomization absent at base that
// builds the same source and path, else the one that emits exactly the same objects.
// Matches must be one to one; anything ambiguous stays unmatched (its findings then read
// as resolved and new, which is what a reviewer sees on the graph too).
func Renames(base, head *graph.Cluster) map[graph.Ref]graph.Ref {
	if base == nil || head == nil {
		return nil
	}
	var gone, added []*graph.Kustomization
	for _, ref := range base.Order {
		if _, ok := head.Kustomizations[ref]; !ok {
			gone = append(gone, base.Kustomizations[ref])
		}
	}
	for _, ref := range head.Order {
		if _, ok := base.Kustomizations[ref]; !ok {
			added = append(added, head.Kustomizations[ref])
		}
	}
	out := map[graph.Ref]graph.Ref{}
	taken := map[graph.Ref]bool{}
	for _, same := range []func(a, b *graph.Kustomization) bool{sameBuild, sameObjects} {
		for _, old := range gone {
			if _, done := out[old.Ref]; done {
				continue
			}
			if to, ok := onlyMatch(old, added, taken, same); ok {
				out[old.Ref] = to
				taken[to] = true
			}
		}
	}
	return out
}

// onlyMatch returns the one untaken candidate that matches old, if exactly one does.
func onlyMatch(old *graph.Kustomization, candidates []*graph.Kustomization, taken map[graph.Ref]bool, same func(a, b *graph.Kustomization) bool) (graph.Ref, bool) {
	var found []graph.Ref
	for _, k := range candidates {
		if !taken[k.Ref] && same(old, k) {
			found = append(found, k.Ref)
		}
	}
	if len(found) != 1 {
		return graph.Ref{}, false
	}
	return found[0], true
}

func sameBuild(a, b *graph.Kustomization) bool {
	return a.Spec.SourceRef == b.Spec.SourceRef && samePath(a.Spec.Path, b.Spec.Path)
}

func sameObjects(a, b *graph.Kustomization) bool {
	return len(a.Objects) > 0 && inventory(a) == inventory(b)
}

// inventory is ks's object identities, sorted, as one string.
func inventory(ks *graph.Kustomization) string {
	ids := make([]string, len(ks.Objects))
	for i, o := range ks.Objects {
		ids[i] = o.ID.String()
	}
	sort.Strings(ids)
	return strings.Join(ids, "\n")
}
