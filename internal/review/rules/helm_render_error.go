package rules

import (
	"fmt"
	"unicode/utf8"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// helmRenderError reports the HelmReleases whose chart fails to render as helm-controller
// renders it (render/helm: Helm v4's install action in dry-run, then the post-renderers):
// helm-controller's install or upgrade fails with the same message (internal/reconcile
// install.go / upgrade.go, action.Install.RunWithContext), the release stays as it was, and
// the HelmRelease is not Ready. The finding points at the HelmRelease's line that causes
// it when the message names one (causeOf: the values key a `required`/`fail` or a schema
// violation names, spec.postRenderers, spec.chart), else at the HelmRelease's own line,
// and the suggestion says what to change for the common kinds of failure. Two causes the
// repository holds are placed where they are written (locateRenderError): an in-repo chart
// folder that does not exist, at spec.chart.spec.chart (or spec.chartRef), and a template
// that does not parse, at its file and line, Helm's message in Details. A render that
// tiergate's Limits refused is no finding: Flux may render it, so it stays "not reviewed".
func helmRenderError(c, _ *graph.Cluster, _ *Env) []Finding {
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		for _, e := range ks.HelmReleaseErrors {
			if e.Err.Limit {
				continue
			}
			id := e.HelmRelease
			hr := id.Namespace + "/" + id.Name
			line := e.Err.Line
			advice := fmt.Sprintf("Fix the chart, values or postRenderers of HelmRelease %s (%s:%d) so that the render succeeds (`helm template` with the same values, then the post-renderers).",
				hr, e.Err.File, e.Err.Line)
			o := manifestOf(ks, id)
			if o != nil && o.File != e.Err.File {
				o = nil
			}
			if at, ok := locateRenderError(c, o, e, hr); ok {
				out = append(out, Finding{
					Rule: "helm-render-error", Severity: Error, Cluster: c.Name, Kustomization: ref.String(), Object: &id,
					Message: at.message, Suggestion: at.suggestion, File: at.file, Line: at.line, Details: at.details,
					resolvedAdvice: "Nothing to do: the chart renders at head.",
				})
				continue
			}
			if o != nil {
				if cause := causeOf(c, o, hr, e.Err.Message); cause.advice != "" {
					line, advice = cause.line, cause.advice
				}
			}
			out = append(out, Finding{
				Rule: "helm-render-error", Severity: Error, Cluster: c.Name, Kustomization: ref.String(), Object: &id,
				Message: fmt.Sprintf("HelmRelease %s's chart fails to render as helm-controller renders it, so its install or upgrade fails and the release keeps what it has: %s",
					hr, capMessage(e.Err.Message)),
				Suggestion: advice,
				File:       e.Err.File, Line: line,
				resolvedAdvice: "Nothing to do: the chart renders at head.",
			})
		}
	}
	return out
}

// manifestOf is the manifest of the object id that ks applies (not one a chart renders),
// nil when ks applies none.
func manifestOf(ks *graph.Kustomization, id graph.ObjectID) *graph.Object {
	for _, o := range ks.Objects {
		if o.ID == id && o.HelmRelease == "" {
			return o
		}
	}
	return nil
}

// maxRenderMessage caps Helm's message in a helm-render-error, in bytes: a chart's `fail`
// or `required` text is the chart's to choose, and one long text must not fill the report
// and the comment (GitHub caps a comment at 65,536 characters).
const maxRenderMessage = 4000

// capMessage is msg cut to maxRenderMessage bytes on a rune boundary, saying how many bytes
// were cut.
func capMessage(msg string) string {
	if len(msg) <= maxRenderMessage {
		return msg
	}
	n := maxRenderMessage
	for n > 0 && !utf8.RuneStart(msg[n]) {
		n--
	}
	return fmt.Sprintf("%s … (Helm's message cut here: %d more bytes)", msg[:n], len(msg)-n)
}
