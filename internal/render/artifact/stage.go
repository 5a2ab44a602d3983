package artifact

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/fluxcd/pkg/sourceignore"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
)

// Stage runs the copy operations of gen's artifact ref over the sources gen names, as
// source-watcher's ArtifactBuilder.Build does, and returns the artifact as a View of its
// own snapshot. dirOf maps a source to the folder of snap (the repository) holding its
// files: the cluster's own source is the repository, one mapped in .tiergate.yaml a
// folder of it; false when it has none. maxFiles bounds the files copied
// (Limits.MaxFiles); ix, the repository's index, places a failing copy operation.
//
// skip, instead, says why the artifact is not reproduced (a pathPattern, a source with no
// folder, the Extract strategy); err is a copy operation that fails, as source-watcher
// fails the artifact, at the generator's line naming its source.
func Stage(gen *Generator, ref graph.SourceRef, snap *graph.Snapshot, dirOf func(graph.SourceRef) (string, bool), maxFiles int, ix *index.Index) (view View, skip string, err *graph.BuildError) {
	name := gen.Obj.ID.Namespace + "/" + gen.Obj.ID.Name
	if gen.Spec.PathPattern != "" {
		return View{}, fmt.Sprintf("sourceRef %s: ArtifactGenerator %s uses pathPattern, which tiergate does not reproduce", ref, name), nil
	}
	sources := map[string]SourceTree{}
	for _, s := range gen.Spec.Sources {
		src := graph.SourceRef{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name}
		if src.Namespace == "" {
			src.Namespace = gen.Obj.ID.Namespace
		}
		dir, ok := dirOf(src)
		if !ok {
			return View{}, fmt.Sprintf("sourceRef %s: ArtifactGenerator %s reads source %s (@%s), which is not the cluster's source and has no folder in %s sources", ref, name, src, s.Alias, config.FileName), nil
		}
		sources[s.Alias] = SourceTree{Snap: snap, Prefix: dir}
	}
	st := NewStaged(maxFiles)
	for _, op := range gen.Spec.Artifacts[gen.Artifact].Copy {
		err := st.Apply(op, sources)
		if errors.Is(err, ErrExtract) {
			return View{}, fmt.Sprintf("sourceRef %s: ArtifactGenerator %s copies '%s' with the Extract strategy, which unpacks a tarball tiergate does not review", ref, name, op.From), nil
		}
		if err != nil {
			line := ix.LineOf(gen.Obj.File, gen.Obj.Line, op.From)
			return View{}, "", &graph.BuildError{File: gen.Obj.File, Line: max(line, gen.Obj.Line),
				Message: fmt.Sprintf("ArtifactGenerator %s cannot build artifact %s: failed to apply copy operation from '%s' to '%s': %v", name, ref.Name, op.From, op.To, err)}
		}
	}
	out, origin, merged := st.Snapshot(path.Join("/tiergate-external-artifact", ref.Namespace, ref.Name))
	// source-watcher archives the staged folder with storage.SourceIgnoreFilter(nil, nil):
	// fluxcd/pkg/sourceignore's default exclusions (ArtifactBuilder.Build).
	m := sourceignore.NewDefaultMatcher(nil, nil)
	out = out.Without(func(rel string, dir bool) bool { return m.Match(strings.Split(rel, "/"), dir) })
	return View{Snap: out, Origin: origin, Merged: merged}, "", nil
}
