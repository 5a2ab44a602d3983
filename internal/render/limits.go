package render

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"gopkg.in/yaml.v3"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// Limits bounds the work one Render does on an untrusted tree. A zero field takes its
// default. Tree limits (files, total bytes, depth) fail Render with ErrLimitExceeded, as
// nothing can be discovered safely; the others fail the Kustomization that hits them with
// a BuildError naming the limit, so the rest of the graph still renders.
type Limits struct {
	// MaxFileBytes caps one file kustomize may read; default 8 MiB. A larger file is refused
	// where it is listed.
	MaxFileBytes int64
	// MaxTotalBytes caps the regular files of the tree together; default 512 MiB.
	MaxTotalBytes int64
	// MaxFiles caps the files, directories and symlinks of the tree; default 200,000.
	MaxFiles int
	// MaxDepth caps directory nesting below the root (a/b/c.yaml has depth 3); default 64.
	MaxDepth int
	// MaxBuildBytes caps the bytes one kustomize build reads, counting a file once per
	// read: it bounds bases included many times over; default 128 MiB.
	MaxBuildBytes int64
	// MaxBuildFiles caps the files one kustomize build reads, counting a file once per
	// read: kustomize's work per base outweighs its bytes; default 10,000.
	MaxBuildFiles int
	// MaxBuildDocuments caps the YAML documents one kustomize build reads: kustomize's
	// time grows with the square of a build's objects (1,000 take 6 s, 4,000 two minutes
	// on a shared 2-core machine), and a build cannot be interrupted; default 5,000.
	MaxBuildDocuments int
	// MaxObjects caps the objects one cluster renders; default 100,000.
	MaxObjects int
	// MaxSubstitutedBytes caps what postBuild substitution writes in one cluster, all its
	// Kustomizations together (MaxBuildBytes bounds each one); default 256 MiB.
	MaxSubstitutedBytes int64
	// MaxKustomizations caps the Flux Kustomizations one cluster renders; default 5,000.
	MaxKustomizations int
	// Timeout caps the wall time of one Render; Kustomizations not built by then fail with
	// a BuildError. Default 5 minutes.
	Timeout time.Duration
}

// DefaultLimits are the limits a zero Limits field takes.
var DefaultLimits = Limits{
	MaxFileBytes: 8 << 20, MaxTotalBytes: 512 << 20, MaxFiles: 200000, MaxDepth: 64,
	MaxBuildBytes: 128 << 20, MaxBuildFiles: 10000, MaxBuildDocuments: 5000, MaxObjects: 100000, MaxSubstitutedBytes: 256 << 20, MaxKustomizations: 5000, Timeout: 5 * time.Minute,
}

// withDefaults returns l with each zero field set from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.MaxFileBytes > 0 {
		d.MaxFileBytes = l.MaxFileBytes
	}
	if l.MaxTotalBytes > 0 {
		d.MaxTotalBytes = l.MaxTotalBytes
	}
	if l.MaxFiles > 0 {
		d.MaxFiles = l.MaxFiles
	}
	if l.MaxDepth > 0 {
		d.MaxDepth = l.MaxDepth
	}
	if l.MaxBuildBytes > 0 {
		d.MaxBuildBytes = l.MaxBuildBytes
	}
	if l.MaxBuildFiles > 0 {
		d.MaxBuildFiles = l.MaxBuildFiles
	}
	if l.MaxBuildDocuments > 0 {
		d.MaxBuildDocuments = l.MaxBuildDocuments
	}
	if l.MaxObjects > 0 {
		d.MaxObjects = l.MaxObjects
	}
	if l.MaxSubstitutedBytes > 0 {
		d.MaxSubstitutedBytes = l.MaxSubstitutedBytes
	}
	if l.MaxKustomizations > 0 {
		d.MaxKustomizations = l.MaxKustomizations
	}
	if l.Timeout > 0 {
		d.Timeout = l.Timeout
	}
	return d
}

// ErrLimitExceeded is wrapped by the error ReadSource and SourceBuilder return when the
// tree exceeds a Limits bound (files, total bytes, depth); the message names the limit and
// the path.
var ErrLimitExceeded = errors.New("render limit exceeded")

// aliasBomb returns why data must not be parsed, or "": YAML aliases that expand to more
// than ten times the document and over 100,000 nodes ("billion laughs"). kustomize's
// reader expands every alias (kyaml RNode.DeAnchor) without a bound, so a few hundred
// bytes would keep a build busy for hours.
func aliasBomb(data []byte) string {
	if !bytes.Contains(data, []byte("*")) {
		return ""
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if dec.Decode(&n) != nil {
			return "" // the end, or an error kustomize reports itself
		}
		nodes, memo := 0, map[*yaml.Node]int{}
		var count func(*yaml.Node) int
		count = func(n *yaml.Node) int {
			if n.Kind == yaml.AliasNode && n.Alias != nil {
				if c, ok := memo[n.Alias]; ok {
					return c
				}
				c := count(n.Alias)
				memo[n.Alias] = c
				return c
			}
			nodes++
			c := 1
			for _, ch := range n.Content {
				c += count(ch)
				if c > 1<<40 {
					return c // enough to refuse; stops overflow
				}
			}
			return c
		}
		if total := count(&n); total > 100000 && total > 10*nodes {
			return fmt.Sprintf(" has YAML aliases that expand to %d nodes from %d, which kustomize would expand without bound (billion laughs)", total, nodes)
		}
	}
}

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
	limits   Limits
	snap     *graph.Snapshot
	fetch    *fetcher // nil fetches nothing
	deadline time.Time
	timedOut atomic.Bool // a Kustomization was not built for the Timeout
}

func newGuards(snap *graph.Snapshot, opts Options) *guards {
	l := opts.Limits.withDefaults()
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
func (g *guards) result(ix *index, dir string, gfs *guardFS, rfs *remoteFS, res resmap.ResMap, err error) *builtResult {
	abs := ix.snap.Root
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
		if be := pluginError(out.err, ix.snap, kfiles); be != nil {
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
		ks.Err = &graph.BuildError{Message: fmt.Sprintf("not rendered: the review reached tiergate's render time limit of %s (Timeout)", g.limits.Timeout), File: ks.File, Line: ks.Line, Limit: true}
		return false
	}
	return true
}

// countKustomization fails child when the cluster already holds MaxKustomizations;
// n counts the cluster's Kustomizations, child included.
func (g *guards) countKustomization(child *graph.Kustomization, n int) {
	if n > g.limits.MaxKustomizations {
		child.Err = &graph.BuildError{Message: fmt.Sprintf("not rendered: the cluster has more than tiergate's limit of %d Kustomizations (MaxKustomizations)", g.limits.MaxKustomizations), File: child.File, Line: child.Line, Limit: true}
	}
}

// countObjects fails ks, and drops its objects, when they take the cluster's object
// count, *n, past MaxObjects.
func (g *guards) countObjects(ks *graph.Kustomization, n *int) {
	*n += len(ks.Objects)
	if *n > g.limits.MaxObjects && len(ks.Objects) > 0 {
		ks.Err = &graph.BuildError{Message: fmt.Sprintf("not rendered: the cluster renders more than tiergate's limit of %d objects (MaxObjects)", g.limits.MaxObjects), File: ks.File, Line: ks.Line, Limit: true}
		ks.Objects = nil
	}
}

// countSubstituted fails ks, and drops its objects, when what substitution wrote for it
// takes the cluster's total, *n, past MaxSubstitutedBytes.
func (g *guards) countSubstituted(ks *graph.Kustomization, n *int64) {
	*n += ks.Substituted
	if *n > g.limits.MaxSubstitutedBytes && ks.Substituted > 0 {
		ks.Err = &graph.BuildError{Message: fmt.Sprintf("not rendered: postBuild substitution in the cluster writes more than tiergate's limit of %d bytes (MaxSubstitutedBytes)", g.limits.MaxSubstitutedBytes), File: ks.File, Line: ks.Line, Limit: true}
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
