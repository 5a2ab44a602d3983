package render

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/fluxcd/pkg/sourceignore"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
)

// Flux 2.7's ArtifactGenerator (fluxcd/source-watcher): it copies files of Flux sources
// into ExternalArtifacts, which Kustomizations use as their sourceRef. tiergate builds
// such an artifact from the generator as the cluster's graph holds it, over the sources it
// names, as a snapshot of its own, and builds the Kustomization there.

const (
	generatorGroup = "source.extensions.fluxcd.io"
	generatorKind  = "ArtifactGenerator"
	externalKind   = "ExternalArtifact"
)

// generatorSpec is the part of ArtifactGeneratorSpec the build reads (source-watcher
// api/v1beta1/artifactgenerator_types.go).
type generatorSpec struct {
	Sources []struct {
		Alias     string `json:"alias"`
		Kind      string `json:"kind"`
		Name      string `json:"name"`
		Namespace string `json:"namespace,omitempty"`
	} `json:"sources"`
	PathPattern string `json:"pathPattern,omitempty"`
	Artifacts   []struct {
		Name string   `json:"name"`
		Copy []copyOp `json:"copy"`
	} `json:"artifacts"`
}

// generator is an ArtifactGenerator of the cluster's graph and one artifact it produces.
type generator struct {
	obj      *graph.Object
	spec     generatorSpec
	artifact int    // index in spec.Artifacts
	key      string // the generator as applied and the artifact: equal keys build equally
}

// generators maps each ExternalArtifact (kind/namespace/name) to the generator producing
// it; the first one applied wins.
type generators map[graph.SourceRef]*generator

// add records o when it is an ArtifactGenerator. Its ExternalArtifacts are named after its
// artifacts, in its namespace (source-watcher reconcileExternalArtifact).
func (g generators) add(o *graph.Object) {
	if o.ID.Group != generatorGroup || o.ID.Kind != generatorKind {
		return
	}
	raw, _ := json.Marshal(o.Body.Object["spec"])
	var spec generatorSpec
	if json.Unmarshal(raw, &spec) != nil {
		return // the API server rejects it: no artifact
	}
	for i, a := range spec.Artifacts {
		ref := graph.SourceRef{Kind: externalKind, Namespace: o.ID.Namespace, Name: a.Name}
		if _, ok := g[ref]; !ok {
			g[ref] = &generator{obj: o, spec: spec, artifact: i, key: ref.String() + "\x00" + o.Owner.String() + "\x00" + string(raw)}
		}
	}
}

// patterned returns the first generator in ns, by name, whose artifacts a pathPattern
// names (their names hold placeholders): it may make any artifact of ns.
func (g generators) patterned(ns string) *generator {
	var out *generator
	for ref, v := range g {
		if ref.Namespace == ns && v.spec.PathPattern != "" && (out == nil || v.obj.ID.Name < out.obj.ID.Name) {
			out = v
		}
	}
	return out
}

func (g generators) clone() generators { return maps.Clone(g) }

// signature names the generators and their specs, to tell whether a round found others.
func (g generators) signature() string {
	keys := make([]string, 0, len(g))
	for _, v := range g {
		keys = append(keys, v.key)
	}
	sort.Strings(keys)
	return strings.Join(keys, "\x00\x00")
}

// artifactView is one generated artifact: the renderer that builds in it, and the
// repository file each of its files was copied from. skip or err, instead, say why it
// cannot be built.
type artifactView struct {
	once   sync.Once
	r      *renderer
	origin map[string]string
	merged map[string]bool // artifact files a Merge wrote: their lines are no file's
	skip   string
	err    *graph.BuildError
}

// buildFromGenerator builds ks, whose source is an ExternalArtifact, from the artifact
// the cluster's ArtifactGenerator makes of it; Skipped when there is none or it cannot be
// reproduced from the repository.
func (r *renderer) buildFromGenerator(ctx context.Context, ks *graph.Kustomization, rootSrc graph.SourceRef, cl clientT, gens generators) {
	ref := ks.Spec.SourceRef
	gen := gens[ref]
	if gen == nil {
		gen = gens.patterned(ref.Namespace)
	}
	if gen == nil {
		ks.Skipped = fmt.Sprintf("sourceRef %s: no ArtifactGenerator in the cluster's graph produces it, and it has no folder in %s sources", ref, config.FileName)
		return
	}
	v, _ := r.views.LoadOrStore(gen.key+"\x00"+ref.String()+"\x00"+rootSrc.String(), &artifactView{})
	view := v.(*artifactView)
	view.once.Do(func() { r.makeView(view, gen, ref, rootSrc) })
	switch {
	case view.skip != "":
		ks.Skipped = view.skip
		return
	case view.err != nil:
		ks.Err = view.err
		return
	}
	view.r.build(ctx, ks, ref, cl, nil)
	if view.r.guards.timedOut.Load() {
		r.guards.timedOut.Store(true)
	}
	view.remap(ks, gen, r.ix)
}

// makeView runs the generator's copy operations for ref over the sources it names: the
// cluster's own source is the repository, one mapped in .tiergate.yaml a folder of it.
func (r *renderer) makeView(v *artifactView, gen *generator, ref, rootSrc graph.SourceRef) {
	name := gen.obj.ID.Namespace + "/" + gen.obj.ID.Name
	if gen.spec.PathPattern != "" {
		v.skip = fmt.Sprintf("sourceRef %s: ArtifactGenerator %s uses pathPattern, which tiergate does not reproduce", ref, name)
		return
	}
	sources := map[string]sourceTree{}
	for _, s := range gen.spec.Sources {
		src := graph.SourceRef{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name}
		if src.Namespace == "" {
			src.Namespace = gen.obj.ID.Namespace
		}
		dir, ok := r.generatorSource(src, rootSrc)
		if !ok {
			v.skip = fmt.Sprintf("sourceRef %s: ArtifactGenerator %s reads source %s (@%s), which is not the cluster's source and has no folder in %s sources", ref, name, src, s.Alias, config.FileName)
			return
		}
		sources[s.Alias] = sourceTree{snap: r.guards.snap, prefix: dir}
	}
	st := &staged{files: map[string]*stagedFile{}, dirs: map[string]bool{}, max: r.guards.limits.MaxFiles}
	for _, op := range gen.spec.Artifacts[gen.artifact].Copy {
		err := st.apply(op, sources)
		if errors.Is(err, errExtract) {
			v.skip = fmt.Sprintf("sourceRef %s: ArtifactGenerator %s copies '%s' with the Extract strategy, which unpacks a tarball tiergate does not review", ref, name, op.From)
			return
		}
		if err != nil {
			line := r.ix.LineOf(gen.obj.File, gen.obj.Line, op.From)
			v.err = &graph.BuildError{File: gen.obj.File, Line: max(line, gen.obj.Line),
				Message: fmt.Sprintf("ArtifactGenerator %s cannot build artifact %s: failed to apply copy operation from '%s' to '%s': %v", name, ref.Name, op.From, op.To, err)}
			return
		}
	}
	snap, origin, merged := st.snapshot(path.Join("/tiergate-external-artifact", ref.Namespace, ref.Name))
	// source-watcher archives the staged folder with storage.SourceIgnoreFilter(nil, nil):
	// fluxcd/pkg/sourceignore's default exclusions (ArtifactBuilder.Build).
	m := sourceignore.NewDefaultMatcher(nil, nil)
	snap = snap.Without(func(rel string, dir bool) bool { return m.Match(strings.Split(rel, "/"), dir) })
	v.origin, v.merged = origin, merged
	v.r = &renderer{
		abs: snap.Root, ix: index.New(snap, r.shared.parsed), workers: 1,
		guards: &guards{limits: r.guards.limits, snap: snap, fetch: r.guards.fetch, deadline: r.guards.deadline},
		cache:  &buildCache{m: map[string]*builtResult{}}, shared: r.shared, fps: fsys.NewFingerprints(snap),
		exact: r.exact, policy: r.policy, artifact: ref,
	}
}

// generatorSource maps a generator's source to its repository folder, as a
// Kustomization's source is mapped; an ExternalArtifact only through .tiergate.yaml.
func (r *renderer) generatorSource(src, rootSrc graph.SourceRef) (string, bool) {
	if r.cfg != nil {
		if dir, ok := r.cfg.SourceDir(src.String()); ok {
			return fsys.CleanPath(dir), true
		}
	}
	return "", src == rootSrc
}

// remap points the objects and the error of ks, built in the artifact, at the repository
// files they were copied from. An object of a merged file is placed in the file copied
// first (ix is the repository's index), where its kind and name are.
func (v *artifactView) remap(ks *graph.Kustomization, gen *generator, ix *index.Index) {
	objs := make([]*graph.Object, len(ks.Objects))
	for i, o := range ks.Objects {
		c := *o
		c.File = v.real(o.File, gen)
		if v.merged[o.File] {
			c.Line = max(ix.Locate(c.File, o.ID.Kind, o.ID.Name), 1)
		}
		objs[i] = &c
	}
	if ks.Objects != nil {
		ks.Objects = objs
	}
	if ks.Err != nil && ks.Err.File != ks.File {
		e := *ks.Err
		e.File = v.real(e.File, gen)
		e.Message = v.realPaths(strings.ReplaceAll(e.Message, v.r.abs+"/", ""), gen)
		if e.Details != "" {
			e.Details = v.realPaths(strings.ReplaceAll(e.Details, v.r.abs+"/", ""), gen)
		}
		ks.Err = &e
	}
}

// pathToken is a slash-separated relative path as kustomize's messages name one.
var pathToken = regexp.MustCompile(`[\w.\-]+(/[\w.\-]+)+`)

// realPaths rewrites the artifact paths msg names (those in the artifact) to repository ones.
func (v *artifactView) realPaths(msg string, gen *generator) string {
	return pathToken.ReplaceAllStringFunc(msg, func(p string) string {
		// An absent path (a missing file) is named through its nearest folder.
		for d, rest := p, ""; d != "."; d, rest = path.Dir(d), path.Join(path.Base(d), rest) {
			if st := v.r.guards.snap.State(d); st == "file" || st == "dir" {
				return path.Join(v.real(d, gen), rest)
			}
		}
		return p
	})
}

// real is the repository path of the artifact path p: the file it was copied from, or for
// a folder the repository folder its files came from; the generator's file otherwise.
func (v *artifactView) real(p string, gen *generator) string {
	if o, ok := v.origin[p]; ok {
		return o
	}
	for _, f := range slices.Sorted(maps.Keys(v.origin)) {
		o := v.origin[f]
		if rest, ok := strings.CutPrefix(f, p+"/"); ok && strings.HasSuffix(o, "/"+rest) {
			return strings.TrimSuffix(o, "/"+rest)
		}
		if p == "" || p == "." {
			if strings.HasSuffix(o, "/"+f) {
				return strings.TrimSuffix(o, "/"+f)
			}
		}
	}
	return gen.obj.File
}

// removeViews removes the generator folders the artifacts' builds wrote on disk.
func (r *renderer) removeViews() {
	r.views.Range(func(_, v any) bool {
		if view := v.(*artifactView); view.r != nil {
			view.r.scratch.remove()
		}
		return true
	})
}

// generates reports whether an ArtifactGenerator of c produces the ExternalArtifact s.
func generates(c *graph.Cluster, s graph.SourceRef) bool { return len(ArtifactOwners(c, s)) > 0 }

// ArtifactOwners returns the Kustomizations of c that apply an ArtifactGenerator producing
// the ExternalArtifact s (kind, namespace, name), or may (a pathPattern), sorted: the artifact exists only once one
// of them has applied it (source-watcher reconcileExternalArtifact creates it).
func ArtifactOwners(c *graph.Cluster, s graph.SourceRef) []graph.Ref {
	var out []graph.Ref
	for id, objs := range c.Owners {
		if id.Group != generatorGroup || id.Kind != generatorKind || id.Namespace != s.Namespace {
			continue
		}
		for _, o := range objs {
			g := generators{}
			g.add(o)
			if g[s] != nil || g.patterned(s.Namespace) != nil {
				out = append(out, o.Owner)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
