package render

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/fluxcd/pkg/sourceignore"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/artifact"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
)

// artifactView is one generated artifact: the renderer that builds in it, and the
// repository file each of its files was copied from. skip or err, instead, say why it
// cannot be built.
type artifactView struct {
	once sync.Once
	r    *renderer
	view artifact.View
	skip string
	err  *graph.BuildError
}

// buildFromGenerator builds ks, whose source is an ExternalArtifact, from the artifact
// the cluster's ArtifactGenerator makes of it; Skipped when there is none or it cannot be
// reproduced from the repository.
func (r *renderer) buildFromGenerator(ctx context.Context, ks *graph.Kustomization, rootSrc graph.SourceRef, cl client.Client, gens artifact.Generators) {
	ref := ks.Spec.SourceRef
	gen := gens[ref]
	if gen == nil {
		gen = gens.Patterned(ref.Namespace)
	}
	if gen == nil {
		ks.Skipped = fmt.Sprintf("sourceRef %s: no ArtifactGenerator in the cluster's graph produces it, and it has no folder in %s sources", ref, config.FileName)
		return
	}
	v, _ := r.views.LoadOrStore(gen.Key+"\x00"+ref.String()+"\x00"+rootSrc.String(), &artifactView{})
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
	view.view.Remap(ks, gen, r.ix)
}

// makeView runs the generator's copy operations for ref over the sources it names: the
// cluster's own source is the repository, one mapped in .tiergate.yaml a folder of it.
func (r *renderer) makeView(v *artifactView, gen *artifact.Generator, ref, rootSrc graph.SourceRef) {
	name := gen.Obj.ID.Namespace + "/" + gen.Obj.ID.Name
	if gen.Spec.PathPattern != "" {
		v.skip = fmt.Sprintf("sourceRef %s: ArtifactGenerator %s uses pathPattern, which tiergate does not reproduce", ref, name)
		return
	}
	sources := map[string]artifact.SourceTree{}
	for _, s := range gen.Spec.Sources {
		src := graph.SourceRef{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name}
		if src.Namespace == "" {
			src.Namespace = gen.Obj.ID.Namespace
		}
		dir, ok := r.generatorSource(src, rootSrc)
		if !ok {
			v.skip = fmt.Sprintf("sourceRef %s: ArtifactGenerator %s reads source %s (@%s), which is not the cluster's source and has no folder in %s sources", ref, name, src, s.Alias, config.FileName)
			return
		}
		sources[s.Alias] = artifact.SourceTree{Snap: r.guards.snap, Prefix: dir}
	}
	st := artifact.NewStaged(r.guards.limits.MaxFiles)
	for _, op := range gen.Spec.Artifacts[gen.Artifact].Copy {
		err := st.Apply(op, sources)
		if errors.Is(err, artifact.ErrExtract) {
			v.skip = fmt.Sprintf("sourceRef %s: ArtifactGenerator %s copies '%s' with the Extract strategy, which unpacks a tarball tiergate does not review", ref, name, op.From)
			return
		}
		if err != nil {
			line := r.ix.LineOf(gen.Obj.File, gen.Obj.Line, op.From)
			v.err = &graph.BuildError{File: gen.Obj.File, Line: max(line, gen.Obj.Line),
				Message: fmt.Sprintf("ArtifactGenerator %s cannot build artifact %s: failed to apply copy operation from '%s' to '%s': %v", name, ref.Name, op.From, op.To, err)}
			return
		}
	}
	snap, origin, merged := st.Snapshot(path.Join("/tiergate-external-artifact", ref.Namespace, ref.Name))
	// source-watcher archives the staged folder with storage.SourceIgnoreFilter(nil, nil):
	// fluxcd/pkg/sourceignore's default exclusions (ArtifactBuilder.Build).
	m := sourceignore.NewDefaultMatcher(nil, nil)
	snap = snap.Without(func(rel string, dir bool) bool { return m.Match(strings.Split(rel, "/"), dir) })
	v.view = artifact.View{Snap: snap, Origin: origin, Merged: merged}
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

// removeViews removes the generator folders the artifacts' builds wrote on disk.
func (r *renderer) removeViews() {
	r.views.Range(func(_, v any) bool {
		if view := v.(*artifactView); view.r != nil {
			view.r.scratch.remove()
		}
		return true
	})
}
