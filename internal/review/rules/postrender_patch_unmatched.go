package rules

import (
	"fmt"
	"regexp"

	"github.com/tiergate/tiergate/internal/render/graph"
)

var postRenderersKey = regexp.MustCompile(`^\s*postRenderers:`)

// postrenderPatchUnmatched reports a HelmRelease's postRenderers kustomize patch whose
// target selects no object of the rendered chart. kustomize applies a targeted patch to
// what its selector matches and to nothing else without an error (api/filters/patchstrategicmerge
// via PatchTransformer over ResMap.Select), and helm-controller's post-renderer is that
// kustomize run (internal/postrender/kustomize.go), so the release installs unpatched. Often a
// name derived from the release name that the chart does not use, or a chart bump that
// renamed the object.
func postrenderPatchUnmatched(c, _ *graph.Cluster, _ *Env) []Finding {
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		for _, rel := range ks.Releases {
			if len(rel.UnmatchedPatches) == 0 {
				continue
			}
			hr := hrObject(ks, rel.HelmRelease)
			if hr == nil {
				continue
			}
			for _, p := range rel.UnmatchedPatches {
				f := objectFinding("postrender-patch-unmatched", Warning, c.Name, hr, ref)
				f.Line = lineAfter(c, hr.File, hr.Line, postRenderersKey)
				name := rel.HelmRelease.Namespace + "/" + rel.HelmRelease.Name
				f.Message = fmt.Sprintf("HelmRelease %s's spec.postRenderers[%d].kustomize.patches[%d] targets %s, which selects no object of the rendered chart: kustomize applies it to nothing, without an error, and the release installs unpatched.",
					name, p.Renderer, p.Patch, p.Target)
				f.Suggestion = fmt.Sprintf("Fix the target of spec.postRenderers[%d].kustomize.patches[%d] in %s to match an object the chart renders (`bot build` lists them), or remove the patch.",
					p.Renderer, p.Patch, hr.File)
				f.key = fmt.Sprintf("%d/%d", p.Renderer, p.Patch)
				out = append(out, f)
			}
		}
	}
	return out
}

// hrObject is the HelmRelease id of ks's own build.
func hrObject(ks *graph.Kustomization, id graph.ObjectID) *graph.Object {
	for _, o := range ks.Objects {
		if o.ID == id && o.HelmRelease == "" {
			return o
		}
	}
	return nil
}
