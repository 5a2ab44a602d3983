package render

import (
	"fmt"
	"sync/atomic"
	"time"

	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
	"github.com/tiergate/tiergate/internal/render/kustomize"
)

// guards is what the builds of one Render share to stay inside their limits.
type guards struct {
	limits   graph.Limits
	snap     *graph.Snapshot
	fetch    *fetcher // nil fetches nothing
	deadline time.Time
	timedOut atomic.Bool // a Kustomization was not built for the Timeout
	// extraIgnore is the roots' spec.ignore the render applies over the source's own
	// ignore rules (specIgnore); "" for none.
	extraIgnore string
}

func newGuards(snap *graph.Snapshot, opts Options) *guards {
	l := opts.Limits.WithDefaults()
	g := &guards{limits: l, snap: snap, deadline: time.Now().Add(l.Timeout)}
	if len(opts.Remote.Allow) > 0 {
		g.fetch = newFetcher(opts.Remote)
	}
	return g
}

// filesystems returns the layers kustomize builds through for the source root root: the
// guard on top, then the remote layer over mem (the artifact with the files a build writes).
func (g *guards) filesystems(abs, root string, mem filesys.FileSystem) (*fsys.GuardFS, *fsys.RemoteFS) {
	rfs := fsys.NewRemoteFS(mem, g.fetch)
	return fsys.NewGuardFS(rfs, g.snap, abs, root, g.limits), rfs
}

// result turns the outcome of kustomize's Build into a builtResult: a refused path or an
// allowed remote file that failed is the build's error, whatever kustomize made of it; a
// URL left out where the build cannot do without it makes the build partial, not failed.
func (g *guards) result(ix *index.Index, dir string, gfs *fsys.GuardFS, rfs *fsys.RemoteFS, res resmap.ResMap, err error) *builtResult {
	abs := ix.Snapshot().Root
	out := &builtResult{remote: rfs.Remote(), copies: rfs.CopiesRel(abs)}
	if out.err = gfs.RefusalError(dir); out.err != nil {
		return out
	}
	if out.err = rfs.Failure(ix, abs); out.err != nil {
		return out
	}
	switch {
	case rfs.IsBlocked():
	case err != nil:
		out.err = buildError(ix, dir, err)
		out.err.Unfetched = len(out.remote) > 0
		if be := kustomize.PluginError(out.err, ix.Snapshot(), gfs.KustomizationFiles()); be != nil {
			out.err = be
		}
	default:
		out.res = res
	}
	return out
}

// admit reports whether ks may be built: not when it already failed (a limit refused it)
// nor once the Render is past its Timeout, which then fails it.
func (g *guards) admit(ks *graph.Kustomization) bool {
	if ks.Err != nil {
		return false
	}
	if time.Now().After(g.deadline) {
		g.timedOut.Store(true)
		ks.Err = &graph.BuildError{Message: fmt.Sprintf("not rendered: the review reached tiergate's render time limit of %s (--render-timeout)", g.limits.Timeout), File: ks.File, Line: ks.Line, Limit: true}
		return false
	}
	return true
}

// countKustomization fails child when the cluster already holds MaxKustomizations;
// n counts the cluster's Kustomizations, child included.
func (g *guards) countKustomization(child *graph.Kustomization, n int) {
	if n > g.limits.MaxKustomizations {
		child.Err = &graph.BuildError{Message: fmt.Sprintf("not rendered: the cluster has more than tiergate's limit of %d Kustomizations (--max-kustomizations)", g.limits.MaxKustomizations), File: child.File, Line: child.Line, Limit: true}
	}
}

// countObjects fails ks, and drops its objects, when they take the cluster's object
// count, *n, past MaxObjects.
func (g *guards) countObjects(ks *graph.Kustomization, n *int) {
	*n += len(ks.Objects)
	if *n > g.limits.MaxObjects && len(ks.Objects) > 0 {
		ks.Err = &graph.BuildError{Message: fmt.Sprintf("not rendered: the cluster renders more than tiergate's limit of %d objects (--max-objects)", g.limits.MaxObjects), File: ks.File, Line: ks.Line, Limit: true}
		ks.Objects = nil
	}
}

// countSubstituted fails ks, and drops its objects, when what substitution wrote for it
// takes the cluster's total, *n, past MaxSubstitutedBytes.
func (g *guards) countSubstituted(ks *graph.Kustomization, n *int64) {
	*n += ks.Substituted
	if *n > g.limits.MaxSubstitutedBytes && ks.Substituted > 0 {
		ks.Err = &graph.BuildError{Message: fmt.Sprintf("not rendered: postBuild substitution in the cluster writes more than tiergate's limit of %d bytes (--max-substituted-bytes)", g.limits.MaxSubstitutedBytes), File: ks.File, Line: ks.Line, Limit: true}
		ks.Objects = nil
	}
}

// relabel points the objects of fetched remote files at their URL.
func relabel(objs []*graph.Object, copies map[string]string) {
	for _, o := range objs {
		if u, ok := copies[o.File]; ok {
			o.File, o.Line = u, 0
		}
	}
}
