package render

import (
	"fmt"
	"sync"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// kustomizeDir runs kustomize on dir. With Options.ExactBuild it calls fluxcd/pkg/kustomize.Build,
// as kustomize-controller does; otherwise kustomizeBuild, which returns the same result.
// kustomize reads through gfs, the top of the layers; rfs, below it, sees kustomization
// files and so knows whether one set an openapi field.
func (r *renderer) kustomizeDir(gfs filesys.FileSystem, rfs *remoteFS, dir string) (resmap.ResMap, error) {
	if r.exact {
		return fluxkustomize.Build(gfs, dir)
	}
	return kustomizeBuild(gfs, rfs, dir)
}

var (
	// buildMu serializes builds: kustomize's global OpenAPI schema is not safe for
	// concurrent use (kubernetes-sigs/kustomize#3659), why fluxcd/pkg/kustomize.Build
	// holds a mutex too.
	buildMu sync.Mutex
	// schemaDirty is set when the global schema may differ from the builtin one.
	schemaDirty = true
)

// kustomizeBuild is fluxcd/pkg/kustomize.Build (krusty with LoadRestrictionsNone and
// builtin plugins only, panics recovered, every build starting from the builtin OpenAPI
// schema alone) at a fraction of its cost. Build resets and re-parses the schema on every
// call, about 40 ms, 25 times a small build; kustomizeBuild resets it only after a build
// that may have changed it. A build changes the global schema only through
// openapi.SetSchema, which krusty calls with a kustomization file's `openapi:` field, so
// the reset follows every build that read such a file, or panicked.
func kustomizeBuild(fs filesys.FileSystem, rfs *remoteFS, dir string) (res resmap.ResMap, err error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			schemaDirty = true
			err = fmt.Errorf("recovered from kustomize build panic: %v", r)
		}
	}()
	if schemaDirty {
		openapi.ResetOpenAPI()
		_ = openapi.Schema()
		schemaDirty = false
	}
	k := krusty.MakeKustomizer(&krusty.Options{
		LoadRestrictions: kustypes.LoadRestrictionsNone,
		PluginConfig:     kustypes.DisabledPluginConfig(),
	})
	res, err = k.Run(fs, dir)
	if rfs.setsOpenAPI() {
		schemaDirty = true
	}
	return res, err
}
