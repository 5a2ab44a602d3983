package render

import (
	"errors"
	"fmt"
	"sync"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/openapi"

	"github.com/tiergate/tiergate/internal/render/fsys"
)

// kustomizeDir runs kustomize on dir through the filesystem layers that layers makes (a
// fresh set per attempt: the guards count what one build reads). With Options.ExactBuild it
// calls fluxcd/pkg/kustomize.Build, as kustomize-controller does; otherwise kustomizeBuild,
// which returns the same result. It returns the layers of the attempt that counted.
func (r *renderer) kustomizeDir(layers func() (*fsys.GuardFS, *fsys.RemoteFS), dir string) (resmap.ResMap, *fsys.GuardFS, *fsys.RemoteFS, error) {
	gfs, rfs := layers()
	if r.exact {
		// Build resets the global schema and may leave a custom one: it runs alone.
		schemaMu.Lock()
		defer schemaMu.Unlock()
		schemaDirty = true
		res, err := fluxkustomize.Build(gfs, dir)
		return res, gfs, rfs, err
	}
	res, err, again := kustomizeShared(gfs, rfs, dir)
	if !again {
		return res, gfs, rfs, err
	}
	gfs, rfs = layers()
	res, err = kustomizeAlone(gfs, rfs, dir)
	return res, gfs, rfs, err
}

// kustomize keeps one OpenAPI schema for the whole process, and a kustomization file's
// `openapi:` field replaces it (openapi.SetSchema) for every build running at that moment:
// kubernetes-sigs/kustomize#3659, why fluxcd/pkg/kustomize.Build builds one at a time and
// resets the schema before each build (about 40 ms, 25 times a small build). tiergate
// builds in parallel whatever cannot touch the schema, and alone what can:
//   - kustomizeShared runs with schemaMu held shared and the remote layer set to refuse a
//     kustomization file that may carry an `openapi:` field, before krusty sees it. Such a
//     build stops there and is done again by kustomizeAlone.
//   - kustomizeAlone holds schemaMu exclusively, resets the schema first if an earlier
//     build may have changed it, and lets krusty set it.
//
// Every build so starts from the builtin schema alone, as with Build.
// TestKustomizeBuildIsolatesOpenAPI and TestParallelBuildsIsolateOpenAPI cover it.
var (
	schemaMu sync.RWMutex
	// schemaDirty (under schemaMu) is set when the global schema may differ from the
	// builtin one: after a build that read an openapi field, or panicked, while alone.
	schemaDirty = true
)

// kustomizeShared runs krusty alongside other builds; again reports that it stopped at a
// possible `openapi:` field, or found the schema dirty, and must be done alone.
func kustomizeShared(gfs *fsys.GuardFS, rfs *fsys.RemoteFS, dir string) (res resmap.ResMap, err error, again bool) {
	schemaMu.RLock()
	defer schemaMu.RUnlock()
	if schemaDirty {
		return nil, nil, true
	}
	rfs.RefuseOpenAPI()
	res, err = runKrusty(gfs, dir)
	return res, err, rfs.SetsOpenAPI()
}

// kustomizeAlone runs krusty with no other build running, from the builtin schema.
func kustomizeAlone(gfs *fsys.GuardFS, rfs *fsys.RemoteFS, dir string) (resmap.ResMap, error) {
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if schemaDirty {
		openapi.ResetOpenAPI()
		_ = openapi.Schema()
		schemaDirty = false
	}
	res, err := runKrusty(gfs, dir)
	if err != nil && errors.Is(err, errPanic) || rfs.SetsOpenAPI() {
		schemaDirty = true
	}
	return res, err
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
