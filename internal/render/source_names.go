package render

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/discover"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helmrelease"
)

// SourceFiles is what the clusters of g's sources contain: the files of the folders the
// review maps their Kustomizations' sources to (the root's GitRepository is the repository,
// a .tiergate.yaml source its folder), each less its GitRepository's spec.ignore (relative
// to the folder, as source-controller packs the artifact), after the tree's .sourceignore
// rules (Options.SourceIgnore). A fixture folder that no source packs is not in it. Nil for
// a graph without clusters.
func SourceFiles(g *graph.Graph) *fsys.Source {
	var snap *graph.Snapshot
	var views []graph.SourceView
	for _, c := range g.Clusters {
		if c.Source != nil {
			snap = c.Source
			views = append(views, c.Sources...)
		}
	}
	if snap == nil {
		return nil
	}
	if len(views) == 0 {
		return &fsys.Source{Snapshot: snap} // no source tiergate maps: which files count is unknown
	}
	matchers := make([]func(rel string) bool, len(views))
	for i, v := range views {
		matchers[i] = v.Contains()
	}
	return &fsys.Source{Snapshot: snap.Without(func(rel string, dir bool) bool {
		if dir {
			return true // a folder stays when a file below it does
		}
		for _, m := range matchers {
			if m(rel) {
				return false
			}
		}
		return true
	})}
}

// sourceViews lists the folders c's Kustomizations build from (sourceRoot), once each,
// with the spec.ignore of each GitRepository of the graph among their sources. The root
// that .tiergate.yaml configures is tiergate's stand-in, not an object of the cluster: its
// sourceRef names no artifact, so only the Kustomizations it applies count.
func (r *renderer) sourceViews(c *graph.Cluster, rt discover.Root, rootSrc graph.SourceRef) []graph.SourceView {
	seen := map[graph.SourceRef]bool{}
	var out []graph.SourceView
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		s := ks.Spec.SourceRef
		if ks.Skipped != "" || seen[s] || (ref == c.Root && rt.Synthetic && rt.By == graph.DiscoveryConfig) {
			continue
		}
		seen[s] = true
		dir, ok := r.sourceRoot(s, rootSrc)
		if !ok {
			continue
		}
		v := graph.SourceView{Dir: dir}
		if b := helmrelease.SourceBody(c, s); b != nil && s.Kind == "GitRepository" {
			v.Ignore, _, _ = unstructured.NestedString(b.Object, "spec", "ignore")
		}
		out = append(out, v)
	}
	return out
}
