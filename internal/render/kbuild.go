package render

import (
	"errors"
	"fmt"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	kustypes "sigs.k8s.io/kustomize/api/types"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/schemalock"
)

// kustomizeDir runs kustomize on dir through the filesystem layers that layers makes (a
// fresh set per attempt: the guards count what one build reads). With Options.ExactBuild it
// calls fluxcd/pkg/kustomize.Build, as kustomize-controller does; otherwise kustomizeBuild,
// which returns the same result. It returns the layers of the attempt that counted.
func (r *renderer) kustomizeDir(layers func() (*fsys.GuardFS, *fsys.RemoteFS), dir string) (resmap.ResMap, *fsys.GuardFS, *fsys.RemoteFS, error) {
	gfs, rfs := layers()
	if r.exact {
		// Build resets the global schema and may leave a custom one: it runs alone.
		var res resmap.ResMap
		var err error
		schemalock.Exclusive(func() { res, err = fluxkustomize.Build(gfs, dir) })
		return res, gfs, rfs, err
	}
	if res, err, ok := kustomizeShared(gfs, rfs, dir); ok {
		return res, gfs, rfs, err
	}
	b := schemalock.Alone(func(pristine bool) (aloneBuild, bool, bool) {
		gfs, rfs := layers()
		if pristine {
			rfs.RefuseOpenAPI()
		}
		res, err := runKrusty(gfs, dir)
		stopped := pristine && rfs.SetsOpenAPI()
		return aloneBuild{res, gfs, rfs, err}, stopped, errors.Is(err, errPanic) || rfs.SetsOpenAPI()
	})
	return b.res, b.gfs, b.rfs, b.err
}

// aloneBuild is what a build run alone gives kustomizeDir.
type aloneBuild struct {
	res resmap.ResMap
	gfs *fsys.GuardFS
	rfs *fsys.RemoteFS
	err error
}

// kustomize keeps one OpenAPI schema for the whole process, and a kustomization file's
// `openapi:` field replaces it for every build running at that moment (package schemalock).
// tiergate builds in parallel whatever cannot touch the schema, and alone what can:
//   - kustomizeShared runs with the builtin schema held shared and the remote layer set to
//     refuse a kustomization file that may carry an `openapi:` field, before krusty sees
//     it. Such a build stops there and is done again alone.
//   - schemalock.Alone holds the schema exclusively, resets it and preloads the builtin
//     one first if an earlier build may have changed it, and lets krusty set it. The
//     process's first build runs there too, on the schema nobody has parsed yet, refusing
//     `openapi:` fields like a shared build: kyaml parses the builtin schema only if that
//     build needs it (a review whose only build is discovery's never does).
//
// Every build so starts from the builtin schema alone, as with Build.
// TestKustomizeBuildIsolatesOpenAPI, TestParallelBuildsIsolateOpenAPI and
// TestFirstBuildParsesSchemaOnNeed cover it.

// kustomizeShared runs krusty alongside other builds; ok is false when it did not run, or
// stopped at a possible `openapi:` field, and must be done alone.
func kustomizeShared(gfs *fsys.GuardFS, rfs *fsys.RemoteFS, dir string) (res resmap.ResMap, err error, ok bool) {
	release, ok := schemalock.Shared()
	if !ok {
		return nil, nil, false
	}
	defer release()
	rfs.RefuseOpenAPI()
	res, err = runKrusty(gfs, dir)
	return res, err, !rfs.SetsOpenAPI()
}

// errPanic wraps a recovered kustomize panic.
var errPanic = errors.New("recovered from kustomize build panic")

// runKrusty is krusty with kustomize-controller's options (LoadRestrictionsNone, builtin
// plugins only); a panic becomes an error wrapping errPanic.
func runKrusty(gfs *fsys.GuardFS, dir string) (res resmap.ResMap, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("%w: %v", errPanic, r)
		}
	}()
	k := krusty.MakeKustomizer(&krusty.Options{
		LoadRestrictions: kustypes.LoadRestrictionsNone,
		PluginConfig:     kustypes.DisabledPluginConfig(),
	})
	return k.Run(gfs, dir)
}
