package rules

import (
	"fmt"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// renderError reports Kustomizations that fail to build: kustomize-controller stops at
// build() and applies nothing of them (flux-semantics.md §1), so every change in them waits.
// A build that one of tiergate's own bounds stopped (BuildError.Limit) is no finding: Flux
// would build it, so it is not a failure of the PR; the report lists it as not reviewed.
func renderError(c, _ *graph.Cluster, _ *Env) []Finding {
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		out = append(out, resourceSetErrors(c, ks)...)
		if ks.Err == nil || ks.Err.Limit || ks.Err.Rejected > 0 && ks.Err.Rejected == ks.Err.Unserved {
			continue // only unserved Flux versions: missing-crd reports each (unservedFluxVersions)
		}
		f := Finding{
			Rule: "render-error", Severity: Error, Cluster: c.Name, Kustomization: ref.String(),
			Message:    fmt.Sprintf("Kustomization %s fails to build, so Flux applies none of it: %s", ref, ks.Err.Message),
			Suggestion: fmt.Sprintf("Fix %s:%d so that `kustomize build` succeeds for path %s.", ks.Err.File, ks.Err.Line, ks.Spec.Path),
			File:       ks.Err.File, Line: ks.Err.Line, Details: ks.Err.Details, refs: []graph.Ref{ref},
		}
		if ks.Spec.SourceRef.Kind == "" { // no spec: the schema requires sourceRef in one
			f.Message = fmt.Sprintf("Kustomization %s has no spec: the API server accepts it, and kustomize-controller fails it, as it names no source to build from.", ref)
			f.Suggestion = fmt.Sprintf("Give Kustomization %s a spec at %s:%d (interval, prune, sourceRef, path).", ref, ks.Err.File, ks.Err.Line)
		}
		if ks.Err.Rejected > 0 {
			// kustomize build succeeds; the apply's dry-run fails (flux-semantics.md §3).
			f.Message = fmt.Sprintf("Kustomization %s fails to apply, so Flux applies none of it: %s.", ref, ks.Err.Message)
			others := ""
			if ks.Err.Rejected > 1 {
				others = ", and the other places named,"
			}
			what := "the Kustomization (kustomize.toolkit.fluxcd.io/v1 schema)"
			if strings.HasPrefix(ks.Err.Message, "the API server rejects HelmRelease ") {
				what = "the HelmRelease (helm.toolkit.fluxcd.io/v2 schema: spec.interval and a chart or chartRef are required)"
			}
			f.Suggestion = fmt.Sprintf("Fix %s:%d%s so that the API server accepts %s.", ks.Err.File, ks.Err.Line, others, what)
		}
		out = append(out, f)
	}
	return out
}

// resourceSetErrors reports the ResourceSets ks applies that flux-operator fails to render
// (internal/builder/resourceset.go BuildResourceSet): the ResourceSet applies none of its
// resources, and ks itself applies.
func resourceSetErrors(c *graph.Cluster, ks *graph.Kustomization) []Finding {
	var out []Finding
	for _, e := range ks.ResourceSetErrors {
		id := e.ResourceSet
		out = append(out, Finding{
			Rule: "render-error", Severity: Error, Cluster: c.Name, Kustomization: ks.Ref.String(), Object: &id,
			Message:    fmt.Sprintf("ResourceSet %s/%s fails to render, so flux-operator applies none of its resources: %s", id.Namespace, id.Name, e.Err.Message),
			Suggestion: fmt.Sprintf("Fix the template or inputs at %s:%d so that `flux-operator build resourceset` succeeds.", e.Err.File, e.Err.Line),
			File:       e.Err.File, Line: e.Err.Line, Details: e.Err.Details,
		})
	}
	return out
}
