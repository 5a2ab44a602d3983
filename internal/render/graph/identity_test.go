package graph

import (
	"slices"
	"testing"
)

// TestSelected: the base keeps the clusters matching a selected head cluster (a, renamed
// from old-a) or named (gone, absent at head); the rest join its UnselectedClusters after
// those it had, identity only. The base graph, shared by the Cache, is not changed, and
// two selections from it share nothing they append to.
func TestSelected(t *testing.T) {
	cl := func(name, id string) *Cluster { return &Cluster{Name: name, ID: id, RootFile: name + "/sync.yaml"} }
	base := &Graph{Clusters: []*Cluster{cl("old-a", "A"), cl("b", "B"), cl("gone", "G"), cl("c", "C")},
		UnselectedClusters: make([]*Cluster, 1, 4)}
	base.UnselectedClusters[0] = cl("u", "U")
	head := &Graph{Clusters: []*Cluster{cl("a", "A")}, UnselectedClusters: []*Cluster{cl("b", "B"), cl("c", "C")}}
	got := Selected(base, head, []string{"gone"})
	if names := clusterNames(got.Clusters); !slices.Equal(names, []string{"old-a", "gone"}) {
		t.Errorf("clusters %q, want old-a and gone", names)
	}
	if names := got.UnselectedNames(); !slices.Equal(names, []string{"u", "b", "c"}) {
		t.Errorf("unselected %q, want u, b, c", names)
	}
	if b := got.UnselectedClusters[1]; b.Name != "b" || b.ID != "B" || b.RootFile != "b/sync.yaml" || b == base.Clusters[1] {
		t.Errorf("unselected b is %+v, want a copy of its identity", b)
	}
	other := Selected(base, &Graph{Clusters: []*Cluster{cl("c", "C")}}, nil)
	if names := other.UnselectedNames(); !slices.Equal(names, []string{"u", "old-a", "b", "gone"}) {
		t.Errorf("second selection: unselected %q", names)
	}
	if names := got.UnselectedNames(); !slices.Equal(names, []string{"u", "b", "c"}) {
		t.Errorf("first selection changed by the second: unselected %q", names)
	}
	if names := clusterNames(base.Clusters); len(base.UnselectedClusters) != 1 || len(names) != 4 {
		t.Errorf("base changed: clusters %q, %d unselected", names, len(base.UnselectedClusters))
	}
	if names := (&Graph{}).UnselectedNames(); names != nil {
		t.Errorf("no unselected cluster: %q, want nil", names)
	}
}

func clusterNames(cs []*Cluster) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}
