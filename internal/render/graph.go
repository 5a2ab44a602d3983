package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	goruntime "runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/sourcegraph/conc/iter"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	runtime "k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/artifact"
	"github.com/tiergate/tiergate/internal/render/discover"
	"github.com/tiergate/tiergate/internal/render/fluxschema"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
	"github.com/tiergate/tiergate/internal/render/kustomize"
)

// Options tunes Render.
type Options struct {
	Config *config.Config
	// Clusters, when set, limits rendering to the named clusters.
	Clusters []string
	// Workers bounds concurrent builds; 0 means GOMAXPROCS.
	Workers int
	// Cache, when set, reuses kustomize builds whose inputs are unchanged from an earlier
	// render (the base of the same review, or an earlier review) and keeps this render's.
	Cache *Cache
	// ExactBuild builds with fluxcd/pkg/kustomize.Build itself instead of the equivalent,
	// faster kustomizeBuild; tests compare the two.
	ExactBuild bool
	// Limits bounds the work on an untrusted tree; zero fields take DefaultLimits.
	Limits graph.Limits
	// Remote says which remote files may be fetched; the zero value fetches none.
	Remote RemotePolicy
	// SourceIgnore applies what source-controller leaves out when it packs the artifact
	// before rendering: symlinks, fluxcd/pkg/sourceignore's defaults, every .sourceignore
	// and the spec.ignore of the cluster roots' GitRepositories.
	SourceIgnore bool
	// Prior is the graph of the commit the cluster runs before this one (a review's base),
	// or nil. A Kustomization that fails here applies nothing, so the Kustomizations it
	// emitted at Prior stay in the cluster with their Prior spec and reconcile this
	// commit's files: they are rendered so (Kustomization.PriorSpec).
	Prior *graph.Graph
	// Helm renders HelmRelease charts (a sandbox Pool, one per review); nil: helm.Render
	// in process.
	Helm HelmRenderer
	// Charts pulls remote charts from the hosts Remote allows; nil: no remote chart is
	// rendered.
	Charts ChartFetcher
}

// maxRounds bounds the substituteFrom fixpoint: a round re-renders the cluster with the
// ConfigMaps and Secrets the previous round rendered; builds themselves are cached.
const maxRounds = 5

// Render builds the Flux graph of every cluster found in dir, the root of a source
// artifact (ReadSource, then RenderSource). It fails only when dir cannot be read or
// exceeds a tree limit; build failures are kept as data.
func Render(ctx context.Context, dir string, opts Options) (*graph.Graph, error) {
	src, err := fsys.ReadSource(dir, opts.Limits)
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", dir, err)
	}
	return RenderSource(ctx, src, opts)
}

// RenderSource builds the Flux graph of every cluster found in src. Build failures are
// kept as data; it fails only when the context ends.
//
// With opts.Cache, the graph of a source with an id is kept, and given again for the same
// id and options: rendering is a function of the files and the options, unless remote
// files are fetched (never kept) or the Timeout cut the render short (not kept). The
// graph is shared: callers must not modify it.
func RenderSource(ctx context.Context, src *fsys.Source, opts Options) (*graph.Graph, error) {
	key := graphKey(src.ID, opts)
	if g, ok := opts.Cache.lookupGraph(key, opts.Prior); ok {
		return g, nil
	}
	if g, ok := opts.Cache.loadGraphs(key, src, opts); ok {
		return g, nil
	}
	g, gd, err := renderSource(ctx, src, opts)
	if err == nil && key != "" && !gd.timedOut.Load() {
		if g.Failed() || priorDependent(g) {
			key = priorKey(key, opts.Prior)
		}
		if key != "" {
			g.Key = key
			opts.Cache.keepGraph(key, g)
			opts.Cache.saveGraph(g, gd.extraIgnore)
		}
	}
	return g, err
}

// priorDependent reports whether g may differ with the prior graph it was rendered over:
// an in-repo chart's HelmChart keeps the prior's chart when only its files changed
// (keptChart), and a root whose path the prior moves runs the prior's spec (RunningRoot),
// so such a graph is kept only under its prior's key (priorKey).
func priorDependent(g *graph.Graph) bool {
	for _, c := range g.Clusters {
		if len(c.HelmCharts) > 0 || c.Running != nil {
			return true
		}
	}
	return false
}

// loadGraphs is lookupGraph from the persistent store: the graph stored under one of
// graphKeys, kept in memory once read.
func (c *Cache) loadGraphs(key string, src *fsys.Source, opts Options) (*graph.Graph, bool) {
	if key == "" {
		return nil, false
	}
	for _, k := range graphKeys(key, opts.Prior) {
		if g, ok := c.loadGraph(k, src, opts); ok && (k != key || !movesRoot(g, opts.Prior)) {
			c.keepGraph(k, g)
			return g, true
		}
	}
	return nil, false
}

// Graph returns the graph RenderSource keeps for a source with that id under opts, when
// it has it: a caller that knows a tree's id need not read the tree.
func (c *Cache) Graph(id string, opts Options) (*graph.Graph, bool) {
	opts.Cache = c
	return c.lookupGraph(graphKey(id, opts), opts.Prior)
}

// lookupGraph finds the graph kept in memory under one of graphKeys.
func (c *Cache) lookupGraph(key string, prior *graph.Graph) (*graph.Graph, bool) {
	if c == nil || key == "" {
		return nil, false
	}
	for _, k := range graphKeys(key, prior) {
		if v, ok := c.find(k, nil); ok && (k != key || !movesRoot(v.graph, prior)) {
			return v.graph, true
		}
	}
	return nil, false
}

// graphKeys are the keys the graph of key, rendered over prior, may be kept under, in the
// order to try them: key (a graph where nothing fails does not depend on the prior
// graph), then priorKey (one where something fails is kept per prior) when prior can be
// named.
func graphKeys(key string, prior *graph.Graph) []string {
	if pk := priorKey(key, prior); pk != "" {
		return []string{key, pk}
	}
	return []string{key}
}

// priorKey is the key of a graph, kept under key, that read prior; "" when prior cannot
// be named (it was not kept).
func priorKey(key string, prior *graph.Graph) string {
	switch {
	case prior == nil:
		return key + "\x00no prior"
	case prior.Key == "":
		return ""
	}
	return key + "\x00prior\x00" + prior.Key
}

// graphKey is the Cache key of the graph of the source id under opts; "" when it may not
// be kept.
func graphKey(id string, opts Options) string {
	if opts.Cache == nil || id == "" || len(opts.Remote.Allow) > 0 {
		return ""
	}
	o, err := json.Marshal(struct {
		Config        *config.Config
		Clusters      []string
		Limits        graph.Limits
		Exact, Ignore bool
		Policy        string
		// Placeholders names the key of the Secret placeholders the graph's charts saw.
		Placeholders string
	}{opts.Config, opts.Clusters, opts.Limits.WithDefaults(), opts.ExactBuild, opts.SourceIgnore, opts.Remote.key(), opts.Cache.placeholders().ID()})
	if err != nil {
		return ""
	}
	return "graph\x00" + id + "\x00" + graph.Digest(o)
}

func renderSource(ctx context.Context, src *fsys.Source, opts Options) (*graph.Graph, *guards, error) {
	snap := src.Snapshot
	if opts.SourceIgnore {
		snap = fsys.Ignored(snap, "", opts.Cache.ignoreVerdicts)
	}
	r := newRenderer(snap, opts)
	defer func() { r.scratch.remove(); r.removeViews() }()
	roots, by := discover.Discover(r.ix, opts.Config, r.folderObjects)
	if opts.SourceIgnore {
		if extra := fsys.SpecIgnore(r.ix, rootSources(roots)); extra != "" {
			r.scratch.remove()
			r.removeViews()
			r = newRenderer(fsys.Ignored(snap, extra, opts.Cache.ignoreVerdicts), opts)
			r.guards.extraIgnore = extra
			roots, by = discover.Discover(r.ix, opts.Config, r.folderObjects)
		}
	}
	gd := r.guards
	g := &graph.Graph{Discovery: by}
	operator := map[*graph.Cluster]bool{}
	rendered := map[*graph.Cluster]discover.Root{}
	for _, rt := range roots {
		if len(opts.Clusters) > 0 && !contains(opts.Clusters, rt.Name) {
			g.UnselectedClusters = append(g.UnselectedClusters, &graph.Cluster{Name: rt.Name, ID: rt.ID(), RootFile: rt.KS.File})
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		c := r.cluster(ctx, rt)
		operator[c] = rt.Synthetic && rt.By == graph.DiscoveryRoots
		g.Clusters = append(g.Clusters, c)
		rendered[c] = rt
	}
	r.runningRoots(g, rendered)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	g.Clusters = dropUnreached(dropNested(g.Clusters), operator)
	return g, gd, nil
}

// newRenderer indexes snap and readies the builds of one render of it.
func newRenderer(snap *graph.Snapshot, opts Options) *renderer {
	gd := newGuards(snap, opts)
	r := &renderer{
		abs: snap.Root, ix: index.New(snap, opts.Cache.parsed), cfg: opts.Config, workers: opts.Workers, guards: gd,
		cache:  &buildCache{m: map[string]*builtResult{}},
		shared: opts.Cache, fps: fsys.NewFingerprints(gd.snap), exact: opts.ExactBuild,
		policy: buildPolicy(opts), prior: opts.Prior, helm: opts.Helm, charts: opts.Charts, remote: opts.Remote,
	}
	if r.helm == nil {
		r.helm = inProcess{}
	}
	if r.workers <= 0 {
		r.workers = goruntime.GOMAXPROCS(0)
	}
	return r
}

// buildPolicy is what, besides its inputs, decides a build's outcome: the remote policy and
// the per-build limits (a build within looser limits may be refused under tighter ones).
func buildPolicy(opts Options) string {
	l := opts.Limits.WithDefaults()
	return fmt.Sprintf("%s %d %d %d %d", opts.Remote.key(), l.MaxFileBytes, l.MaxBuildBytes, l.MaxBuildFiles, l.MaxBuildDocuments)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// dropNested removes clusters whose root another cluster's graph already reconciles.
func dropNested(cs []*graph.Cluster) []*graph.Cluster {
	var out []*graph.Cluster
	for _, c := range cs {
		nested := false
		for _, o := range cs {
			if o == c {
				continue
			}
			for _, ks := range o.Kustomizations {
				if ks.Parent != nil && ks.Ref.Name == c.Root.Name && fsys.CleanPath(ks.Spec.Path) == c.RootDir {
					nested = true
				}
			}
		}
		if !nested {
			out = append(out, c)
		}
	}
	return out
}

// dropUnreached removes the clusters of FluxInstances and flux-instance HelmReleases that
// no cluster applies when another one is applied by a cluster (its own, as flux-operator
// then manages itself): the others lie in folders Flux does not reconcile, such as an
// .archive/ of a retired installation. When none is applied (all installed out of band),
// all are kept.
func dropUnreached(cs []*graph.Cluster, operator map[*graph.Cluster]bool) []*graph.Cluster {
	reached := func(c *graph.Cluster) bool {
		for _, o := range cs {
			for _, objs := range o.Owners {
				for _, obj := range objs {
					if obj.File == c.RootFile && (obj.ID.Kind == "HelmRelease" || obj.ID.Kind == "FluxInstance" || obj.ID.Kind == "ResourceSet") {
						return true
					}
				}
			}
		}
		return false
	}
	var out []*graph.Cluster
	applied := false
	for _, c := range cs {
		switch {
		case !operator[c]:
			out = append(out, c)
		case reached(c):
			applied = true
			out = append(out, c)
		}
	}
	if !applied {
		return cs
	}
	return out
}

type renderer struct {
	abs     string
	ix      *index.Index
	cfg     *config.Config
	cache   *buildCache
	workers int
	guards  *guards
	shared  *Cache             // across renders; nil: none
	fps     *fsys.Fingerprints // state of this tree's build inputs
	exact   bool
	policy  string       // the remote policy, part of every shared cache key
	objects sync.Map     // objectsKey → builtObjects, across the rounds of this render
	prior   *graph.Graph // Options.Prior
	scratch scratch      // the generator's folder on disk
	views   sync.Map     // ArtifactGenerator artifact → *artifactView, for this render
	helm    HelmRenderer
	charts  ChartFetcher
	remote  RemotePolicy
	// artifact is the ExternalArtifact whose tree this renderer reads (an artifact view);
	// zero for the repository's own tree.
	artifact graph.SourceRef
}

// cluster renders one cluster to the substituteFrom fixpoint.
func (r *renderer) cluster(ctx context.Context, rt discover.Root) *graph.Cluster {
	seed, gens := kustomize.Store{}, artifact.Generators{}
	var c *graph.Cluster
	var st kustomize.Store
	for round := 0; round < maxRounds; round++ {
		var found artifact.Generators
		c, st, found = r.round(ctx, rt, seed, gens)
		if c.Contested != nil && rt.Orig == (graph.Ref{}) {
			// A synthetic root hides nothing: render again with it moved aside.
			return r.cluster(ctx, rt.Rekeyed())
		}
		if st.Equal(seed) && found.Signature() == gens.Signature() {
			break
		}
		seed, gens = st, found
	}
	rootSrc := rt.KS.Spec.SourceRef
	if rt.Unresolved != "" {
		rootSrc = graph.SourceRef{Kind: "none"}
	}
	var prior *graph.Cluster
	if r.prior != nil {
		prior = r.prior.Counterpart(rt.ID(), rt.KS.File, rt.Name)
	}
	r.helmReleases(ctx, c, finalStore(c, st).Client(), rootSrc, prior)
	c.Sources = r.sourceViews(c, rt, rootSrc)
	if rt.Orig != (graph.Ref{}) {
		c.Contested = c.Kustomizations[rt.Orig]
		if rt.By != graph.DiscoveryRoots {
			c.Contested = nil // tiergate's own stand-in: no second applier in the cluster
		}
	}
	return c
}

// finalStore holds the ConfigMaps and Secrets of c's builds as they finally are, and those
// of st that no build of c emits (a failed Kustomization's objects at the prior commit):
// st keeps the first version each round saw, which may predate a substitution that a
// later round resolved, and a HelmRelease's valuesFrom reads the settled cluster.
func finalStore(c *graph.Cluster, st kustomize.Store) kustomize.Store {
	out := kustomize.Store{}
	for _, ref := range c.Order {
		for _, o := range c.Kustomizations[ref].Objects {
			out.Add(o)
		}
	}
	for id, u := range st {
		if _, ok := out[id]; !ok {
			out[id] = u
		}
	}
	return out
}

// contests reports whether child, emitted by a build, is the synthetic root's own Ref with
// another path or source: the real Kustomization that the root would otherwise hide.
func contests(rt discover.Root, child *graph.Kustomization) bool {
	if !rt.Synthetic || rt.Orig != (graph.Ref{}) || child.Ref != rt.KS.Ref {
		return false
	}
	return fsys.CleanPath(child.Spec.Path) != fsys.CleanPath(rt.KS.Spec.Path) || child.Spec.SourceRef != rt.KS.Spec.SourceRef
}

// round renders the cluster wave by wave (a parent before the Kustomizations it emits),
// building each wave in parallel. ConfigMaps and Secrets become visible to substituteFrom
// from the next wave on, and to every wave in the next round; so do ArtifactGenerators
// (known lists those of the previous round), which the round returns.
func (r *renderer) round(ctx context.Context, rt discover.Root, seed kustomize.Store, known artifact.Generators) (*graph.Cluster, kustomize.Store, artifact.Generators) {
	c := &graph.Cluster{
		Name: rt.Name, ID: rt.ID(), RootFile: rt.KS.File, Dir: r.abs, Source: r.guards.snap, Root: rt.KS.Ref, RootDir: fsys.CleanPath(rt.KS.Spec.Path),
		Kustomizations: map[graph.Ref]*graph.Kustomization{}, Owners: map[graph.ObjectID][]*graph.Object{},
	}
	// sourceRoot maps the root's source to the repository only when it is a GitRepository or
	// .tiergate.yaml maps it: an OCIRepository or Bucket is an artifact made elsewhere.
	rootSrc := rt.KS.Spec.SourceRef
	if rt.Unresolved != "" {
		rootSrc = graph.SourceRef{Kind: "none"} // its path is unknown: nothing is built from it
	}
	var prior *graph.Cluster
	if r.prior != nil {
		prior = r.prior.Counterpart(rt.ID(), rt.KS.File, rt.Name)
	}
	st, gens, found := seed.Clone(), known.Clone(), artifact.Generators{}
	fresh := map[graph.ObjectID]bool{} // the ConfigMaps and Secrets this round has built
	rootCopy := *rt.KS
	wave := []*graph.Kustomization{&rootCopy}
	seen := map[graph.Ref]bool{rt.KS.Ref: true}
	objects, substituted := 0, int64(0)
	var kept []*graph.Kustomization // priorChildren of failed Kustomizations, not yet built
	for ctx.Err() == nil {
		if len(wave) == 0 {
			// Those come last: one that a working parent emits at this commit, at any depth,
			// is that parent's (server-side apply takes the object over from the failed one).
			wave, kept = r.enqueue(kept, seen), nil
			if len(wave) == 0 {
				break
			}
		}
		cl := st.Client()
		m := iter.Mapper[*graph.Kustomization, struct{}]{MaxGoroutines: r.workers}
		m.Map(wave, func(ks **graph.Kustomization) struct{} {
			r.build(ctx, *ks, rootSrc, cl, gens)
			return struct{}{}
		})
		var next []*graph.Kustomization
		for _, ks := range wave {
			if ks == &rootCopy && rt.Unresolved != "" {
				ks.Skipped = rt.Unresolved
			}
			r.expandResourceSets(ks, c)
			r.guards.countObjects(ks, &objects)
			r.guards.countSubstituted(ks, &substituted)
			c.Kustomizations[ks.Ref] = ks
			c.Order = append(c.Order, ks.Ref)
			children := r.children(ks, c)
			for _, ch := range children {
				if contests(rt, ch) && c.Contested == nil {
					c.Contested = ch
				}
			}
			live := ks.Objects
			if ks.Err != nil {
				children = nil
				kept = append(kept, r.priorChildren(ks, prior)...)
				live = priorObjects(ks.Ref, prior, live)
			}
			for _, o := range live {
				st.Update(o, fresh)
				gens.Add(o)
				found.Add(o)
			}
			next = append(next, children...)
		}
		wave = r.enqueue(next, seen)
	}
	return c, st, found
}

// enqueue returns the Kustomizations of list not seen yet, sorted by Ref, and marks them seen.
func (r *renderer) enqueue(list []*graph.Kustomization, seen map[graph.Ref]bool) []*graph.Kustomization {
	var out []*graph.Kustomization
	for _, ks := range list {
		if !seen[ks.Ref] {
			seen[ks.Ref] = true
			r.guards.countKustomization(ks, len(seen))
			out = append(out, ks)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ref.String() < out[j].Ref.String() })
	return out
}

// priorObjects returns what the failed Kustomization ref leaves in the cluster, for
// substituteFrom: the objects it applied at the prior commit (kustomize-controller applies
// nothing of a failed build, flux-semantics.md §3), none when it is new. Without a prior
// it returns built: what this commit's files hold is the best guess.
func priorObjects(ref graph.Ref, prior *graph.Cluster, built []*graph.Object) []*graph.Object {
	if prior == nil {
		return built
	}
	if p := prior.Kustomizations[ref]; p != nil {
		return p.Objects
	}
	return nil
}

// children records the objects of ks in c and returns the Flux Kustomizations among
// them. One the API server would reject fails ks: the apply fails as a whole
// (flux-semantics.md §3). The error names every rejected one, at its first.
func (r *renderer) children(ks *graph.Kustomization, c *graph.Cluster) []*graph.Kustomization {
	var out []*graph.Kustomization
	var rejected []string
	unserved := 0
	for _, o := range ks.Objects {
		c.Owners[o.ID] = append(c.Owners[o.ID], o)
		if unservedFluxObject(o) {
			// No such version on the API server: the dry-run fails ('no matches for kind')
			// and ks applies nothing, its children included.
			rejected = append(rejected, fmt.Sprintf("%s %s: apiVersion %s is not served, no matches for kind (%s:%d)", o.ID.Kind, path.Join(o.ID.Namespace, o.ID.Name), o.Body.GetAPIVersion(), o.File, o.Line))
			unserved++
			if ks.Err == nil {
				ks.Err = &graph.BuildError{File: o.File, Line: o.Line}
			}
			continue
		}
		if vs := rejectedHelmRelease(o); len(vs) > 0 {
			line := r.rejectedLine(o, vs[0])
			// The violations quote o's values: its Secret-derived ones are masked, any length.
			msg := graph.MaskSecretParts(violations(vs), o.SecretFields)
			rejected = append(rejected, fmt.Sprintf("HelmRelease %s/%s: %s (%s:%d)", o.ID.Namespace, o.ID.Name, msg, o.File, line))
			if ks.Err == nil {
				ks.Err = &graph.BuildError{File: o.File, Line: line}
			}
			continue
		}
		if !kustomize.IsFluxKustomization(o.Body) {
			continue
		}
		ref := ks.Ref
		child, err := kustomize.NewKustomization(r.withDefaults(o.Body), o.File, o.Line, &ref)
		if errors.Is(err, kustomize.ErrNoSpec) {
			// Applied, then failed by kustomize-controller: a node that builds nothing.
			out = append(out, &graph.Kustomization{Ref: graph.Ref{Namespace: o.Body.GetNamespace(), Name: o.Body.GetName()}, Parent: &ref,
				File: o.File, Line: o.Line, Body: o.Body, JSON: &graph.BodyJSON{}, SecretFields: o.SecretFields,
				Err: &graph.BuildError{Message: graph.MaskSecretParts(err.Error(), o.SecretFields), File: o.File, Line: o.Line}})
			continue
		}
		if err != nil {
			line := o.Line
			var inv *kustomize.InvalidSpec
			if errors.As(err, &inv) && !inv.Meta {
				line = r.ix.KeyLine(o.File, o.Line, inv.Field)
			}
			rejected = append(rejected, fmt.Sprintf("%s (%s:%d)", graph.MaskSecretParts(err.Error(), o.SecretFields), o.File, line))
			if ks.Err == nil {
				ks.Err = &graph.BuildError{File: o.File, Line: line}
			}
			continue
		}
		child.SecretFields = o.SecretFields
		out = append(out, child)
	}
	if len(rejected) > 0 && ks.Err.Message == "" {
		ks.Err.Message, ks.Err.Rejected, ks.Err.Unserved = "the API server rejects "+strings.Join(rejected, "; "), len(rejected), unserved
	}
	return out
}

// unservedFluxObject reports whether o, an object ks applies itself (not a chart's or a
// ResourceSet's), is of a Flux kind in a version its CRD does not serve
// (fluxschema.Accepted).
func unservedFluxObject(o *graph.Object) bool {
	return o.HelmRelease == "" && o.ResourceSet == "" && o.Body != nil && fluxschema.Interpreted(o.ID.Group, o.ID.Kind) && !fluxschema.Accepted(o.Body.GetAPIVersion(), o.ID.Kind)
}

// rejectedHelmRelease returns the violations of the HelmRelease CRD's schema in o
// (fluxschema.Check: helm-controller api/v2 kubebuilder markers, the required
// spec.interval among them), none when o is no HelmRelease of the build or the API server
// accepts it. Its dry-run fails, and with it the whole apply of the Kustomization (fluxcd/pkg
// ssa ResourceManager.ApplyAllStaged), as for a rejected child Kustomization.
func rejectedHelmRelease(o *graph.Object) []fluxschema.Violation {
	if o.HelmRelease != "" || o.ID.Group != "helm.toolkit.fluxcd.io" || o.ID.Kind != "HelmRelease" || !fluxschema.Accepted(o.Body.GetAPIVersion(), o.ID.Kind) {
		return nil
	}
	return fluxschema.Check(o.ID.Group, o.ID.Kind, o.Body.Object)
}

// rejectedLine is the line of the field violation v is about in o's manifest: its key
// under spec, or the spec line itself when the field is missing (a required one) or
// nested deeper than the index reads.
func (r *renderer) rejectedLine(o *graph.Object, v fluxschema.Violation) int {
	if line := r.ix.KeyLine(o.File, o.Line, v.Top); v.Top != "" && line != o.Line {
		return line
	}
	return r.ix.KeyLine(o.File, o.Line, "")
}

// violations joins what the HelmRelease schema says is wrong (vs).
func violations(vs []fluxschema.Violation) string {
	msgs := make([]string, len(vs))
	for i, v := range vs {
		msgs[i] = v.Msg
	}
	return strings.Join(msgs, "; ")
}

// priorChildren returns the Kustomizations that the failed ks emitted in the prior
// cluster, with their prior spec: kustomize-controller applies nothing of a failed build
// (flux-semantics.md §3), so they stay as they were. They point at their manifest in this
// commit when ks still emits them (where a fix goes), else at the prior one.
func (r *renderer) priorChildren(ks *graph.Kustomization, prior *graph.Cluster) []*graph.Kustomization {
	if prior == nil {
		return nil
	}
	var out []*graph.Kustomization
	for _, ref := range prior.Order {
		p := prior.Kustomizations[ref]
		if p.Parent == nil || *p.Parent != ks.Ref {
			continue
		}
		file, line := p.File, p.Line
		for _, o := range ks.Objects {
			if kustomize.IsFluxKustomization(o.Body) && o.Body.GetName() == ref.Name && o.Body.GetNamespace() == ref.Namespace {
				file, line = o.File, o.Line
				break
			}
		}
		parent := ks.Ref
		child, err := kustomize.NewKustomization(p.Body, file, line, &parent)
		if err != nil {
			continue // it was valid when it was applied; a changed kustomizationDefaults is no reason
		}
		child.PriorSpec = true
		out = append(out, child)
	}
	return out
}

// build renders one Kustomization into ks.Objects, or records why it could not.
func (r *renderer) build(ctx context.Context, ks *graph.Kustomization, rootSrc graph.SourceRef, cl client.Client, gens artifact.Generators) {
	if ks.Err != nil || !r.guards.admit(ks) { // failed before its build (kustomize.ErrNoSpec)
		return
	}
	src, ok := r.sourceRoot(ks.Spec.SourceRef, rootSrc)
	if !ok && ks.Spec.SourceRef.Kind == artifact.ExternalKind && gens != nil {
		r.buildFromGenerator(ctx, ks, rootSrc, cl, gens)
		return
	}
	if !ok && ks.Spec.SourceRef == rootSrc {
		ks.Skipped = fmt.Sprintf("sourceRef %s is the cluster's root source, an artifact made outside the repository (an OCI artifact pushed from CI, a bucket): "+
			"map it to the folder it is built from in %s sources to review it", ks.Spec.SourceRef, config.FileName)
		return
	}
	if !ok {
		ks.Skipped = fmt.Sprintf("sourceRef %s is not the cluster's source and has no folder in %s sources", ks.Spec.SourceRef, config.FileName)
		return
	}
	built := r.cache.kustomize(src, ks, func() *builtResult { return r.runKustomize(src, ks) })
	ks.Remote = built.remote
	if built.err != nil && built.err.Unfetched {
		ks.NeedsRemote = fmt.Sprintf("%s:%d: %s", built.err.File, built.err.Line, built.err.Message)
		return
	}
	if built.err != nil {
		ks.Err = maskedError(nsConflictAt(r.ix, ks, built.err), ks.SecretFields)
		return
	}
	if !built.hasResources() { // a patch, generator or other file it loads is a remote URL
		ks.NeedsRemote = "a file its kustomization loads is a remote URL"
		return
	}
	sub, be := kustomize.NewSubstitution(ctx, r.ix, cl, ks, r.guards.limits.MaxBuildBytes)
	if be != nil {
		ks.Err = maskedError(be, ks.SecretFields)
		return
	}
	out := r.objectsOf(ctx, built, src, ks, sub)
	ks.Objects, ks.Err, ks.Substituted = out.objs, maskedError(out.err, ks.SecretFields), out.substituted
	ks.Reads = built.reads
}

// maskedError returns e, or a copy of it whose texts have the Secret-derived parts of
// fields (the Kustomization's own SecretFields: a path or interval its parent substituted
// from a Secret) masked where they stand as a token or a quoted value
// (graph.MaskSecretParts): a build error quotes them ("./nowhere/jw"), whatever their
// length. e is shared by a cache: never modified.
func maskedError(e *graph.BuildError, fields []graph.SecretField) *graph.BuildError {
	if e == nil || len(fields) == 0 {
		return e
	}
	return e.MapTexts(func(s string) string { return graph.MaskSecretParts(s, fields) })
}

// objectsOf returns the objects of built for ks after the substitution sub: kept by this
// render, or by the shared Cache (in memory, then its Store) for a shared build, else made
// by objectsFrom and kept. They are shared: never modified.
func (r *renderer) objectsOf(ctx context.Context, built *builtResult, src string, ks *graph.Kustomization, sub *kustomize.Substitution) builtObjects {
	// The substituteFrom fixpoint renders a cluster several times, and most Kustomizations
	// see the same variables in every round, and in the other render of a review.
	subKey := substitutionKey(ks, sub)
	memo, key := &r.objects, any(objectsKey{built, subKey})
	if built.variant != nil {
		memo, key = &built.variant.objects, subKey
	}
	if o, ok := memo.Load(key); ok {
		return o.(builtObjects)
	}
	if built.variant != nil {
		if out, ok := r.shared.loadObjects(built.variant, subKey); ok {
			memo.Store(key, out)
			return out
		}
	}
	res := built.resources()
	if res == nil { // a build read from the Store that no longer builds (not expected)
		return builtObjects{err: &graph.BuildError{Message: "internal error: a cached build of this Kustomization could not be made again", File: ks.File, Line: ks.Line}}
	}
	objs, be := objectsFrom(ctx, r.ix, r.abs, src, ks, res.DeepCopy(), sub)
	if be == nil {
		relabel(objs, built.copies)
	}
	out := builtObjects{objs: objs, err: be}
	if sub != nil {
		out.substituted = sub.Written()
	}
	if ctx.Err() == nil { // a cancelled render's errors are not the build's
		memo.Store(key, out)
		if built.variant != nil {
			r.shared.saveObjects(built.variant, subKey, out)
		}
	}
	return out
}

// objectsKey identifies the objects of one build of this render after substitution.
type objectsKey struct {
	built *builtResult
	sub   string
}

type builtObjects struct {
	objs        []*graph.Object
	err         *graph.BuildError
	substituted int64 // bytes substitution wrote
}

// substitutionKey is everything objectsFrom reads besides the build: the Kustomization
// as applied and the variables substitution resolved for it.
func substitutionKey(ks *graph.Kustomization, sub *kustomize.Substitution) string {
	body := ks.BodyJSON()
	if secrets := kustomize.SpecSecrets(ks); len(secrets) > 0 {
		// The same text, substituted from a Secret or written as it is, builds the same
		// objects but not the same SecretFields.
		j, _ := json.Marshal(secrets)
		body = append(slices.Clip(body), j...)
	}
	if sub == nil {
		return string(body)
	}
	return string(body) + "\x00" + sub.Key()
}

// withDefaults returns u with the configured kustomizationDefaults set where its spec
// leaves them unset; u itself (the object as applied, used in diffs) is not changed.
func (r *renderer) withDefaults(u *unstructured.Unstructured) *unstructured.Unstructured {
	if r.cfg == nil || len(r.cfg.KustomizationDefaults) == 0 {
		return u
	}
	c := u.DeepCopy()
	spec, _, _ := unstructured.NestedMap(c.Object, "spec")
	if spec == nil {
		spec = map[string]any{}
	}
	for k, v := range r.cfg.KustomizationDefaults {
		if _, set := spec[k]; !set {
			spec[k] = runtime.DeepCopyJSONValue(v)
		}
	}
	_ = unstructured.SetNestedMap(c.Object, spec, "spec")
	return c
}

// sourceRoot maps a sourceRef to the repo folder its paths are relative to: the cluster's
// own GitRepository is the repository itself unless .tiergate.yaml maps it. A root of
// another kind (an OCIRepository or Bucket pushed from CI) holds an artifact of an unknown
// folder, so only the configuration maps it.
func (r *renderer) sourceRoot(ref, rootSrc graph.SourceRef) (string, bool) {
	if r.cfg != nil {
		if dir, ok := r.cfg.SourceDir(ref.String()); ok {
			return fsys.CleanPath(dir), true
		}
	}
	if ref.Kind == "" || ref == rootSrc && (ref.Kind == "GitRepository" || ref == r.artifact) {
		return "", true
	}
	return "", false
}

// folderObjects builds the repo-relative dir as a Kustomization of the repository's own
// source whose path is dir, without substitution (discover.FolderBuild).
func (r *renderer) folderObjects(dir string) []*graph.Object {
	ks := discover.SyntheticRoot("flux-system", "flux-system", dir, graph.SourceRef{Kind: "GitRepository", Namespace: "flux-system", Name: "flux-system"}, dir, 1)
	built := r.cache.kustomize("", ks, func() *builtResult { return r.runKustomize("", ks) })
	if built.err != nil || !built.hasResources() {
		return nil
	}
	out := r.objectsOf(context.Background(), built, "", ks, nil)
	if out.err != nil {
		return nil
	}
	return out.objs
}

// rootSources are the sources of the cluster roots.
func rootSources(roots []discover.Root) []graph.SourceRef {
	out := make([]graph.SourceRef, len(roots))
	for i, rt := range roots {
		out[i] = rt.KS.Spec.SourceRef
	}
	return out
}
