package render

import (
	"strings"

	"sigs.k8s.io/kustomize/api/resource"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
	"github.com/tiergate/tiergate/internal/render/kustomize"
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

// namedAsTarget reports whether obj, a v1 Namespace of ks that kustomize's namespace
// transformer named ks's spec.targetNamespace (api/filters/namespace: metadata.name of
// kind Namespace), was written with another name that ks's postBuild substitution turns
// into the target. kustomize-controller substitutes after the build (controller build():
// SecureBuild, then fluxcd/pkg/kustomize SubstituteVariables per resource), so the
// `${TENANT}` the source shows is already the target when substitution runs; what the
// user meant, the written name substituted, is the target too: no rename in effect.
func namedAsTarget(ix *index.Index, ks *graph.Kustomization, obj *graph.Object, r *resource.Resource, sub *kustomize.Substitution) bool {
	target := ks.Spec.TargetNamespace
	if target == "" || obj.ID.Group != "" || obj.ID.Kind != "Namespace" || obj.ID.Name != target {
		return false
	}
	for _, d := range ix.Docs(obj.File) {
		if d.Line != obj.Line || d.Kind != "Namespace" {
			continue
		}
		if d.Name == target || !strings.Contains(d.Name, "$") {
			return false
		}
		meant, ok := sub.Meant(r, d.Name)
		return ok && meant == target
	}
	return false
}
