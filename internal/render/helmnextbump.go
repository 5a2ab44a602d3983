package render

import (
	"context"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm"
)

// nextBumpFailure renders tree, the in-repo chart as the head's tree holds it, with req's
// values while the release keeps the chart its HelmChart packaged (keptChart): the change
// is released by the next version bump, so a failure of tree is what that bump brings
// (helm-controller fails the upgrade and the installed release stays). It returns the note
// for the kept chart, "" when tree renders or ctx ended.
func (r *renderer) nextBumpFailure(ctx context.Context, req helm.Request, tree *graph.LoadedChart) string {
	req.Chart = tree.Chart
	_, err := r.renderChart(ctx, req, tree.Digest)
	if err == nil || ctx.Err() != nil {
		return ""
	}
	return "; the changed chart itself fails to render, so its next version bump fails the upgrade: " + err.Error()
}
