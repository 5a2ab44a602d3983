package render

import (
	"context"
	"fmt"
	"sync"

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
		ks.Err = maskedError(view.err, ks.SecretFields)
		return
	}
	view.r.build(ctx, ks, ref, cl, nil)
	if view.r.guards.timedOut.Load() {
		r.guards.timedOut.Store(true)
	}
	view.view.Remap(ks, gen, r.ix)
}

// makeView stages the artifact ref of gen (artifact.Stage) and the renderer that builds in
// it, which shares this render's limits, fetcher, deadline and Cache.
func (r *renderer) makeView(v *artifactView, gen *artifact.Generator, ref, rootSrc graph.SourceRef) {
	dirOf := func(src graph.SourceRef) (string, bool) { return r.generatorSource(src, rootSrc) }
	v.view, v.skip, v.err = artifact.Stage(gen, ref, r.guards.snap, dirOf, r.guards.limits.MaxFiles, r.ix)
	if v.skip != "" || v.err != nil {
		return
	}
	snap := v.view.Snap
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
