package render

import (
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
)

// nsConflictAt moves a namespace-transformer ID conflict of ks's build to the line that
// does the renaming. kustomize-controller writes spec.targetNamespace as the `namespace:`
// of the generated root kustomization (fluxcd/pkg/kustomize kustomize_generator.go
// WriteFile), so a conflict of the root build (the chain starts with the transformer's
// own error, api/builtins NamespaceTransformer.go, not with "accumulating resources") is
// the targetNamespace field of the Flux Kustomization when it sets one, else the root
// kustomization.yaml's own `namespace:` line. A conflict of a nested kustomization keeps
// the place locateError found. be is shared by builds: a copy is returned.
func nsConflictAt(ix *index.Index, ks *graph.Kustomization, be *graph.BuildError) *graph.BuildError {
	if be == nil || !strings.HasPrefix(be.Details, "namespace transformation produces ID conflict") {
		return be
	}
	out := *be
	if ks.Spec.TargetNamespace != "" {
		if l := ix.KeyLine(ks.File, ks.Line, "targetNamespace"); l != ks.Line {
			out.File, out.Line = ks.File, l
		}
		return &out
	}
	if l := topKeyLine(ix, out.File, "namespace"); l > 0 {
		out.Line = l
	}
	return &out
}

// topKeyLine is the 1-based line of the top-level key of rel (a line starting with
// "key:"); 0 when absent.
func topKeyLine(ix *index.Index, rel, key string) int {
	if !ix.Readable(rel) {
		return 0
	}
	data, err := ix.Read(rel)
	if err != nil {
		return 0
	}
	for i, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, key+":"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r') {
			return i + 1
		}
	}
	return 0
}
