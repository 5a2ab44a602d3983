package graph

import (
	"slices"
	"sort"
)

// ClusterPair is one cluster at two commits; Base or Head is nil when the cluster exists
// at one commit only.
type ClusterPair struct {
	Base, Head *Cluster
}

// MatchClusters pairs the clusters of base and head by Cluster.ID, so that moving a root's
// path or renaming its folder is a change to that cluster. Several clusters may share an
// ID (bootstrap clusters all named flux-system/flux-system): those pair by RootFile, then
// by Name, then the one left on each side, if one is. A FluxInstance whose sync.path moves
// into another cluster's folder keeps its RootFile, and discovery keeps it a cluster of its
// own (render/discover dedupe), so it pairs with itself and is reviewed as that folder's
// graph, never as gone. Pairs come sorted by the head's name (the base's when the cluster
// is gone).
func MatchClusters(base, head *Graph) []ClusterPair {
	type group struct{ b, h []*Cluster }
	groups := map[string]*group{}
	var ids []string
	add := func(c *Cluster, atHead bool) {
		g := groups[c.ID]
		if g == nil {
			g = &group{}
			groups[c.ID] = g
			ids = append(ids, c.ID)
		}
		if atHead {
			g.h = append(g.h, c)
		} else {
			g.b = append(g.b, c)
		}
	}
	for _, c := range head.Clusters {
		add(c, true)
	}
	for _, c := range base.Clusters {
		add(c, false)
	}
	var out []ClusterPair
	for _, id := range ids {
		g := groups[id]
		pairs, bs, hs := pairBy(g.b, g.h, func(c *Cluster) string { return c.RootFile })
		out = append(out, pairs...)
		pairs, bs, hs = pairBy(bs, hs, func(c *Cluster) string { return c.Name })
		out = append(out, pairs...)
		if len(bs) == 1 && len(hs) == 1 {
			out = append(out, ClusterPair{Base: bs[0], Head: hs[0]})
			bs, hs = nil, nil
		}
		for _, b := range bs {
			out = append(out, ClusterPair{Base: b})
		}
		for _, h := range hs {
			out = append(out, ClusterPair{Head: h})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].name() < out[j].name() })
	return out
}

func (p ClusterPair) name() string {
	if p.Head != nil {
		return p.Head.Name
	}
	return p.Base.Name
}

// pairBy pairs the clusters of bs and hs whose key is unique on both sides and equal, and
// returns the rest in order.
func pairBy(bs, hs []*Cluster, key func(*Cluster) string) (pairs []ClusterPair, restB, restH []*Cluster) {
	count := map[string][2]int{}
	for _, b := range bs {
		n := count[key(b)]
		n[0]++
		count[key(b)] = n
	}
	for _, h := range hs {
		n := count[key(h)]
		n[1]++
		count[key(h)] = n
	}
	byKey := map[string]*Cluster{}
	for _, b := range bs {
		if count[key(b)] == [2]int{1, 1} {
			byKey[key(b)] = b
		} else {
			restB = append(restB, b)
		}
	}
	for _, h := range hs {
		if b := byKey[key(h)]; b != nil {
			pairs = append(pairs, ClusterPair{Base: b, Head: h})
		} else {
			restH = append(restH, h)
		}
	}
	return pairs, restB, restH
}

// Counterpart is the cluster of g that a cluster with this identity, root file and name
// matches (MatchClusters' order of preference), or nil.
func (g *Graph) Counterpart(id, file, name string) *Cluster {
	var same []*Cluster
	for _, c := range g.Clusters {
		if c.ID == id {
			same = append(same, c)
		}
	}
	for _, key := range []func(*Cluster) bool{
		func(c *Cluster) bool { return c.RootFile == file },
		func(c *Cluster) bool { return c.Name == name },
	} {
		for _, c := range same {
			if key(c) {
				return c
			}
		}
	}
	if len(same) == 1 {
		return same[0]
	}
	return nil
}

// Selected returns base with only the clusters that match a selected cluster of head
// (MatchClusters over every cluster head found) or, gone at head, are named in names: the base side of a review limited to clusters by
// name, where a cluster renamed at head has another name at base. The graph is a copy;
// its clusters are shared.
func Selected(base, head *Graph, names []string) *Graph {
	selected := map[*Cluster]bool{}
	for _, c := range head.Clusters {
		selected[c] = true
	}
	// The head's clusters left out take part in matching, so that theirs stay theirs.
	all := &Graph{Clusters: append(append([]*Cluster{}, head.Clusters...), head.UnselectedClusters...)}
	keep := map[*Cluster]bool{}
	for _, p := range MatchClusters(base, all) {
		if p.Base != nil && (selected[p.Head] || p.Head == nil && slices.Contains(names, p.Base.Name)) {
			keep[p.Base] = true
		}
	}
	out := *base
	out.Clusters = nil
	out.UnselectedClusters = slices.Clone(base.UnselectedClusters) // base is shared
	for _, c := range base.Clusters {
		if keep[c] {
			out.Clusters = append(out.Clusters, c)
		} else {
			out.UnselectedClusters = append(out.UnselectedClusters, &Cluster{Name: c.Name, ID: c.ID, RootFile: c.RootFile})
		}
	}
	return &out
}
