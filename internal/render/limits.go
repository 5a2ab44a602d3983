package render

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
	"github.com/tiergate/tiergate/internal/render/kustomize"
)

// refusal is why a build may not read a path.
type refusal struct {
	path   string // absolute, cleaned
	reason string
}

// refusedUnder returns the first refused YAML file below dir that the generator would
// read when dir has no kustomization file of its own.
func refusedUnder(snap *graph.Snapshot, dir string) *refusal {
	abs, refused := snap.Root, snap.Refused
	if k := kustomizationFileLstat(snap, dir); k != "" {
		if r, ok := refused[graph.RelPath(abs, k)]; ok {
			return &refusal{path: k, reason: r}
		}
		return nil
	}
	prefix := graph.RelPath(abs, dir) + "/"
	var hits []string
	for rel := range refused {
		if ext := filepath.Ext(rel); strings.HasPrefix(rel, prefix) && (ext == ".yaml" || ext == ".yml") {
			hits = append(hits, rel)
		}
	}
	if len(hits) == 0 {
		return nil
	}
	sort.Strings(hits)
	return &refusal{path: filepath.Join(abs, filepath.FromSlash(hits[0])), reason: refused[hits[0]]}
}

// kustomizationFileLstat is kustomizationFile without following symlinks: it returns the
// name present in dir even when it is a symlink, so that a refused one is reported.
func kustomizationFileLstat(snap *graph.Snapshot, dir string) string {
	for _, n := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		if snap.State(snap.Rel(filepath.Join(dir, n))) != "absent" {
			return filepath.Join(dir, n)
		}
	}
	return ""
}

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
func (g *guards) filesystems(abs, root string, mem filesys.FileSystem) (*guardFS, *remoteFS) {
	rfs := &remoteFS{FileSystem: mem, fetch: g.fetch}
	return &guardFS{FileSystem: rfs, snap: g.snap, abs: abs, root: root, maxBytes: g.limits.MaxBuildBytes, maxFiles: g.limits.MaxBuildFiles, maxDocs: g.limits.MaxBuildDocuments}, rfs
}

// result turns the outcome of kustomize's Build into a builtResult: a refused path or an
// allowed remote file that failed is the build's error, whatever kustomize made of it; a
// URL left out where the build cannot do without it makes the build partial, not failed.
func (g *guards) result(ix *index.Index, dir string, gfs *guardFS, rfs *remoteFS, res resmap.ResMap, err error) *builtResult {
	abs := ix.Snapshot().Root
	out := &builtResult{remote: rfs.remote(), copies: rfs.copiesRel(abs)}
	switch {
	case gfs.refusalError(dir) != nil:
		out.err = gfs.refusalError(dir)
	case rfs.failure(ix, abs) != nil:
		out.err = rfs.failure(ix, abs)
	case rfs.isBlocked():
	case err != nil:
		out.err = buildError(ix, dir, err)
		out.err.Unfetched = len(out.remote) > 0
		gfs.mu.Lock()
		kfiles := gfs.kfiles
		gfs.mu.Unlock()
		if be := kustomize.PluginError(out.err, ix.Snapshot(), kfiles); be != nil {
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
