package render

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/discover"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/kustomize"
)

// running is what the root of c does at the merge when this commit moves its path away
// from the prior commit's (graph.RunningRoot): the root object in the cluster keeps the
// prior spec until a build applies its edited manifest, so it builds this commit's tree at
// the prior path (kustomize-controller reconcile; flux-operator's root likewise keeps the
// sync.path of the FluxInstance in the cluster until that FluxInstance is applied again).
// Nil without a prior counterpart, for a configured or folder-discovered cluster, or when
// the path is unchanged.
func (r *renderer) running(rt discover.Root, c, p *graph.Cluster) *graph.RunningRoot {
	if rt.By != graph.DiscoveryRoots || rt.Unresolved != "" || p.RootDir == c.RootDir {
		return nil
	}
	prior := p.Kustomizations[p.Root]
	if prior == nil {
		return nil
	}
	rr := &graph.RunningRoot{Path: prior.Spec.Path, Dir: p.RootDir}
	if r.guards.snap.State(cmp.Or(p.RootDir, ".")) != "dir" {
		rr.Missing = true
		return rr
	}
	built := r.cache.kustomize("", prior, func() *builtResult { return r.runKustomize("", prior) })
	if built.err != nil {
		rr.Err = built.err.Message
		return rr
	}
	var objs []*graph.Object
	if built.hasResources() {
		out := r.objectsOf(context.Background(), built, "", prior, nil)
		if out.err != nil {
			rr.Err = out.err.Message
			return rr
		}
		objs = out.objs
	}
	for _, o := range objs {
		rr.Objects = append(rr.Objects, o.ID)
	}
	slices.SortFunc(rr.Objects, func(a, b graph.ObjectID) int { return strings.Compare(a.String(), b.String()) })
	holdsRoot(rr, rt, objs)
	return rr
}

// runningRoots sets the Running of g's clusters (made from roots) that the prior graph
// pairs with a cluster of another root folder, as the review pairs them
// (graph.MatchClusters: the cluster's identity, then its root file, name, or the one left).
func (r *renderer) runningRoots(g *graph.Graph, roots map[*graph.Cluster]discover.Root) {
	if r.prior == nil {
		return
	}
	for _, pair := range graph.MatchClusters(r.prior, g) {
		if pair.Base != nil && pair.Head != nil {
			pair.Head.Running = r.running(roots[pair.Head], pair.Head, pair.Base)
		}
	}
}

// holdsRoot sets rr's Holds, File, Line and NextDir from the root's own manifest among
// objs: a bootstrap root's Kustomization (its Ref), or the FluxInstance or flux-instance
// HelmRelease from which flux-operator makes a root of the same Ref and source.
func holdsRoot(rr *graph.RunningRoot, rt discover.Root, objs []*graph.Object) {
	ref := rt.Ref()
	if !rt.Synthetic {
		for _, o := range objs {
			if o.Body == nil || !kustomize.IsFluxKustomization(o.Body) || o.ID.Namespace != ref.Namespace || o.ID.Name != ref.Name {
				continue
			}
			p, _, _ := unstructured.NestedString(o.Body.Object, "spec", "path")
			rr.Holds, rr.File, rr.Line, rr.NextDir = true, o.File, o.Line, fsys.CleanPath(p)
			return
		}
		return
	}
	for _, root := range discover.OperatorRootsIn(objs) {
		if root.Ref() == ref && root.KS.Spec.SourceRef == rt.KS.Spec.SourceRef {
			rr.Holds, rr.File, rr.Line, rr.NextDir = true, root.KS.File, root.KS.Line, fsys.CleanPath(root.KS.Spec.Path)
			return
		}
	}
}

// movesRoot reports whether prior has a cluster of g with another root folder: g, kept
// under a key that names no prior (graphKeys), was then rendered without the
// RunningRoot that prior gives it, and is not the graph to give.
func movesRoot(g, prior *graph.Graph) bool {
	if prior == nil {
		return false
	}
	for _, pair := range graph.MatchClusters(prior, g) {
		if pair.Base != nil && pair.Head != nil && pair.Base.RootDir != pair.Head.RootDir {
			return true
		}
	}
	return false
}
