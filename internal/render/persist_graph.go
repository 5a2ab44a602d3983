package render

import (
	"encoding/json"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helmrelease"
	"github.com/tiergate/tiergate/internal/render/typedvalue"
)

// diskGraph is the stored form of a whole graph (RenderSource's key: the source's tree id
// and the render options): what graph.Graph holds, with its pointers made indexes so that
// the objects shared by Kustomizations and Owners are shared again once read.
type diskGraph struct {
	Clusters   []diskCluster
	Unselected []diskUnselected `json:",omitempty"`
	Discovery  graph.Discovery
	Key        string
	// Ignore is the spec.ignore of the roots' GitRepositories that the render applied
	// after the source's own ignore rules (fsys.SpecIgnore); the clusters' Source is that view.
	Ignore string
}

// diskUnselected is a cluster left out by Options.Clusters: its identity only.
type diskUnselected struct{ Name, ID, RootFile string }

// diskCluster is the stored form of a graph.Cluster; Dir and Source are the tree's.
type diskCluster struct {
	Name, ID, RootFile, RootDir string
	Root                        graph.Ref
	Contested                   *graph.Kustomization `json:",omitempty"`
	Running                     *graph.RunningRoot   `json:",omitempty"`
	// Kustomizations are the cluster's, by their key (a contested root is kept under
	// another name than its Ref).
	Kustomizations []diskKustomization
	Order          []graph.Ref
	// Owners lists every object's owners as places in Kustomizations' Objects.
	Owners  []diskOwners
	Sources []graph.SourceView
	// Charts are the cluster's HelmCharts (graph.Cluster.HelmCharts) without the loaded
	// chart, which loadGraph loads from the tree again (LoadedChart.Source); ChartsNil
	// tells a cluster without HelmCharts.
	Charts    []diskChart `json:",omitempty"`
	ChartsNil bool
}

// diskChart is one of a cluster's HelmCharts: its key and the LoadedChart but its Chart.
type diskChart struct {
	Key   string
	Chart graph.LoadedChart
}

type diskKustomization struct {
	Key graph.Ref
	KS  *graph.Kustomization
	// Values are the values of KS.Releases, in order, with their Go types.
	Values []typedvalue.Value `json:",omitempty"`
}

type diskOwners struct {
	ID graph.ObjectID
	Of []objectPlace
}

// objectPlace is an object of Kustomizations[KS].Objects (KS -1: of Contested) at I.
type objectPlace struct{ KS, I int }

// graphOnDisk is the store key of the graph kept under key.
func graphOnDisk(key string) string { return "graphs\x00" + key }

// saveGraph stores g, rendered with the extra ignore patterns ignore, unless it holds
// what the stored form cannot give back exactly: a HelmChart holding the prior commit's
// chart (Kept: the tree does not have it), release values of a type typedvalue does not
// keep, or an object that is not in exactly one Kustomization's Objects. In-repo charts
// are stored by their source and digest and loaded from the tree again (clusterFromDisk).
func (c *Cache) saveGraph(g *graph.Graph, ignore string) {
	if c == nil || c.disk == nil || g.Key == "" {
		return
	}
	d, ok := graphToDisk(g, ignore)
	if !ok {
		return
	}
	if data, err := json.Marshal(d); err == nil {
		c.disk.Put(graphOnDisk(g.Key), data)
	}
}

func graphToDisk(g *graph.Graph, ignore string) (diskGraph, bool) {
	d := diskGraph{Discovery: g.Discovery, Key: g.Key, Ignore: ignore}
	for _, u := range g.UnselectedClusters {
		d.Unselected = append(d.Unselected, diskUnselected{u.Name, u.ID, u.RootFile})
	}
	for _, c := range g.Clusters {
		dc, ok := clusterToDisk(c)
		if !ok {
			return diskGraph{}, false
		}
		d.Clusters = append(d.Clusters, dc)
	}
	return d, true
}

func clusterToDisk(c *graph.Cluster) (diskCluster, bool) {
	dc := diskCluster{Name: c.Name, ID: c.ID, RootFile: c.RootFile, RootDir: c.RootDir, Root: c.Root,
		Contested: c.Contested, Running: c.Running, Order: c.Order, Sources: c.Sources, ChartsNil: c.HelmCharts == nil}
	for key, ch := range c.HelmCharts {
		if ch == nil || ch.Chart == nil || ch.Kept != "" || ch.Source == nil {
			return diskCluster{}, false
		}
		d := *ch
		d.Chart = nil
		dc.Charts = append(dc.Charts, diskChart{key, d})
	}
	place := map[*graph.Object]objectPlace{}
	at := func(ks *graph.Kustomization, n int) bool {
		for i, o := range ks.Objects {
			if _, dup := place[o]; dup {
				return false
			}
			place[o] = objectPlace{n, i}
		}
		return true
	}
	if c.Contested != nil && (!at(c.Contested, -1) || len(c.Contested.Releases) > 0) {
		return diskCluster{}, false
	}
	// Map order is not kept: Order (and the keys) say which Kustomization is which.
	for key, ks := range c.Kustomizations {
		if ks == c.Contested || !at(ks, len(dc.Kustomizations)) {
			return diskCluster{}, false
		}
		vals, ok := releaseValues(ks)
		if !ok {
			return diskCluster{}, false
		}
		dc.Kustomizations = append(dc.Kustomizations, diskKustomization{key, ks, vals})
	}
	for id, objs := range c.Owners {
		do := diskOwners{ID: id}
		for _, o := range objs {
			p, ok := place[o]
			if !ok {
				return diskCluster{}, false
			}
			do.Of = append(do.Of, p)
		}
		dc.Owners = append(dc.Owners, do)
	}
	return dc, true
}

// loadGraph returns the graph stored under key, made from src's snapshot as renderSource
// makes the clusters' Source (the ignore rules, then the stored spec.ignore); false when the
// store has none, or one that does not decode into a whole graph.
func (c *Cache) loadGraph(key string, src *fsys.Source, opts Options) (*graph.Graph, bool) {
	if c == nil || c.disk == nil || key == "" {
		return nil, false
	}
	data, ok := c.disk.Get(graphOnDisk(key))
	if !ok {
		return nil, false
	}
	var d diskGraph
	if json.Unmarshal(data, &d) != nil || d.Key != key {
		return nil, false
	}
	snap := src.Snapshot
	if opts.SourceIgnore {
		snap = fsys.Ignored(snap, "", c.ignoreVerdicts)
		if d.Ignore != "" {
			snap = fsys.Ignored(snap, d.Ignore, c.ignoreVerdicts)
		}
	}
	g := &graph.Graph{Discovery: d.Discovery, Key: d.Key}
	for _, u := range d.Unselected {
		g.UnselectedClusters = append(g.UnselectedClusters, &graph.Cluster{Name: u.Name, ID: u.ID, RootFile: u.RootFile})
	}
	for _, dc := range d.Clusters {
		cl, ok := clusterFromDisk(dc, snap, opts.Limits.WithDefaults().MaxBuildBytes, c)
		if !ok {
			return nil, false
		}
		g.Clusters = append(g.Clusters, cl)
	}
	return g, true
}

// releaseValues is the typed form of ks's release values; false when one holds a type
// typedvalue does not keep.
func releaseValues(ks *graph.Kustomization) ([]typedvalue.Value, bool) {
	var out []typedvalue.Value
	for _, rel := range ks.Releases {
		v, err := typedvalue.Encode("values", rel.Values)
		if err != nil {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// chartsFromDisk loads the stored HelmCharts' charts from snap as the render loaded them
// (helmrelease.LoadRepoChart within maxBytes, from memo when it has them: the head's render
// then reuses them); false when one does not load, or loads
// with another digest than the stored one.
func chartsFromDisk(dc diskCluster, snap *graph.Snapshot, maxBytes int64, memo helmrelease.ChartMemo) (map[string]*graph.LoadedChart, bool) {
	if dc.ChartsNil {
		return nil, len(dc.Charts) == 0
	}
	out := make(map[string]*graph.LoadedChart, len(dc.Charts))
	for _, d := range dc.Charts {
		cs, err := helmrelease.LoadStored(d.Chart.Source)
		if err != nil || cs.HelmChart != d.Chart.HelmChart {
			return nil, false
		}
		rc, err := helmrelease.LoadRepoChartMemo(snap, cs, maxBytes, memo)
		if err != nil || "repo:"+rc.Digest != d.Chart.Digest {
			return nil, false
		}
		ch := d.Chart
		ch.Chart = rc.Chart
		out[d.Key] = &ch
	}
	return out, true
}

// valuesFromDisk gives ks's releases their stored values back; false when they do not
// decode into one values map per release.
func valuesFromDisk(k diskKustomization) bool {
	if len(k.Values) != len(k.KS.Releases) {
		return false
	}
	for i, tv := range k.Values {
		v, ok := tv.Decode()
		m, isMap := v.(map[string]any)
		if !ok || (!isMap && v != nil) {
			return false
		}
		k.KS.Releases[i].Values = m
	}
	return true
}

func clusterFromDisk(dc diskCluster, snap *graph.Snapshot, maxBytes int64, memo helmrelease.ChartMemo) (*graph.Cluster, bool) {
	c := &graph.Cluster{Name: dc.Name, ID: dc.ID, RootFile: dc.RootFile, RootDir: dc.RootDir, Root: dc.Root,
		Dir: snap.Root, Source: snap, Contested: dc.Contested, Running: dc.Running, Order: dc.Order, Sources: dc.Sources,
		Kustomizations: make(map[graph.Ref]*graph.Kustomization, len(dc.Kustomizations)),
		Owners:         make(map[graph.ObjectID][]*graph.Object, len(dc.Owners))}
	charts, ok := chartsFromDisk(dc, snap, maxBytes, memo)
	if !ok {
		return nil, false
	}
	c.HelmCharts = charts
	for _, k := range dc.Kustomizations {
		if !wholeKustomization(k.KS) || !valuesFromDisk(k) {
			return nil, false
		}
		c.Kustomizations[k.Key] = k.KS
	}
	if c.Contested != nil && !wholeKustomization(c.Contested) {
		return nil, false
	}
	for _, do := range dc.Owners {
		objs := make([]*graph.Object, 0, len(do.Of))
		for _, p := range do.Of {
			ks := c.Contested
			if p.KS >= 0 {
				if p.KS >= len(dc.Kustomizations) {
					return nil, false
				}
				ks = dc.Kustomizations[p.KS].KS
			}
			if ks == nil || p.I < 0 || p.I >= len(ks.Objects) {
				return nil, false
			}
			objs = append(objs, ks.Objects[p.I])
		}
		c.Owners[do.ID] = objs
	}
	return c, true
}

// wholeKustomization reports whether ks, as read from the store, has what every
// Kustomization of a render has: a Body, and a Body on every object.
func wholeKustomization(ks *graph.Kustomization) bool {
	if ks == nil || ks.Body == nil {
		return false
	}
	ks.JSON = &graph.BodyJSON{}
	for _, o := range ks.Objects {
		if o == nil || o.Body == nil {
			return false
		}
	}
	return true
}
