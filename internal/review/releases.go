package review

import (
	"reflect"
	"sort"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// ReleaseChange is a HelmRelease rendered at both commits whose chart or values change:
// the line the comment heads its changed objects with ("chart 5.0.1 → 5.1.0, values: 2 keys").
type ReleaseChange struct {
	Cluster       string `json:"cluster"`
	HelmRelease   string `json:"helmRelease"` // namespace/name
	Kustomization string `json:"kustomization"`
	// FromChart/ToChart and FromVersion/ToVersion are the chart reference and its
	// Chart.yaml version at base and head.
	FromChart   string `json:"fromChart"`
	ToChart     string `json:"toChart"`
	FromVersion string `json:"fromVersion"`
	ToVersion   string `json:"toVersion"`
	// Values counts the leaf keys of the final values that differ (added, removed or changed);
	// a list is one leaf.
	Values int `json:"values"`
}

// diffReleases lists the HelmReleases of the cluster rendered at both sides whose chart
// or values differ, in head build order.
func (r *Report) diffReleases(b, h *graph.Cluster) {
	if b == nil || h == nil {
		return
	}
	at := map[graph.ObjectID]graph.Release{}
	for _, ks := range b.Kustomizations {
		for _, rel := range ks.Releases {
			at[rel.HelmRelease] = rel
		}
	}
	for _, ref := range h.Order {
		for _, rel := range h.Kustomizations[ref].Releases {
			prev, ok := at[rel.HelmRelease]
			if !ok {
				continue
			}
			n := changedLeaves(prev.Values, rel.Values)
			if n == 0 && prev.Chart == rel.Chart && prev.Version == rel.Version {
				continue
			}
			r.Releases = append(r.Releases, ReleaseChange{Cluster: h.Name, HelmRelease: rel.HelmRelease.Namespace + "/" + rel.HelmRelease.Name,
				Kustomization: ref.String(), FromChart: prev.Chart, ToChart: rel.Chart, FromVersion: prev.Version, ToVersion: rel.Version, Values: n})
		}
	}
}

// changedLeaves counts the leaf keys (a non-map value) that a and b do not share equal.
func changedLeaves(a, b map[string]any) int {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	n := 0
	for _, k := range names {
		x, xok := a[k]
		y, yok := b[k]
		xm, xIsMap := x.(map[string]any)
		ym, yIsMap := y.(map[string]any)
		switch {
		case xIsMap && yIsMap:
			n += changedLeaves(xm, ym)
		case xIsMap && !yok:
			n += changedLeaves(xm, nil)
		case yIsMap && !xok:
			n += changedLeaves(nil, ym)
		case !xok || !yok || !reflect.DeepEqual(x, y):
			n++
		}
	}
	return n
}
