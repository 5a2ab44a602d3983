package kustomize

import (
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// pluginFields are the kustomization keys that configure plugins; kustomize-controller
// builds with builtin plugins only and without --enable-helm (fluxcd/pkg/kustomize Build:
// krusty.Options{PluginConfig: DisabledPluginConfig()}), so exec and container KRM
// functions, external plugins and helmCharts fail its build.
var pluginFields = []string{"transformers:", "generators:", "validators:", "helmCharts:", "helmGlobals:", "helmChartInflationGenerator:"}

// PluginError says, for a build that kustomize failed because a plugin is not builtin or
// Helm is disabled, that kustomize-controller refuses it too, and points at the key that
// asked for it in the latest kustomization file read; nil for other errors.
func PluginError(be *graph.BuildError, snap *graph.Snapshot, kfiles []string) *graph.BuildError {
	abs := snap.Root
	if !strings.Contains(be.Message, "external plugins disabled") && !strings.Contains(be.Message, "must specify --enable-helm") {
		return nil
	}
	out := *be
	out.Message = "kustomize-controller runs builtin plugins only, without Helm, so nothing was run: " + be.Message
	for i := len(kfiles) - 1; i >= 0; i-- {
		data, ok := snap.ReadAbs(kfiles[i])
		if !ok {
			continue
		}
		for n, l := range strings.Split(string(data), "\n") {
			for _, f := range pluginFields {
				if strings.HasPrefix(l, f) {
					out.File, out.Line = graph.RelPath(abs, kfiles[i]), n+1
					return &out
				}
			}
		}
	}
	return &out
}
