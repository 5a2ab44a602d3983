package render

import (
	"context"
	"slices"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm"
	"github.com/tiergate/tiergate/internal/render/helmrelease"
)

// nextBump renders tree, the in-repo chart as the head's tree holds it, with req's values
// while the release keeps the chart its HelmChart packaged (keptChart): the change is
// released by the next version bump, so tree's output is what that bump brings, and a
// failure of tree is the bump's failure (helm-controller fails the upgrade and the installed
// release stays). It returns the note for the kept chart ("" when tree renders or ctx
// ended) and tree's output (nil when it fails). Its files hide secrets as renderRelease's.
func (r *renderer) nextBump(ctx context.Context, req helm.Request, tree *graph.LoadedChart, secrets []string) (string, *helm.Result) {
	mask := r.shared.placeholders()
	digest := tree.Digest
	var files helmrelease.FileSecrets
	if req.Chart, files = mask.ChartFiles(tree.Chart, secrets); files.Replaced { // as renderRelease
		digest += "+placeholders:" + mask.ID() + ":" + files.Digest
	}
	res, err := r.renderChart(ctx, req, digest)
	if err == nil || ctx.Err() != nil {
		return "", res
	}
	return "; the changed chart itself fails to render, so its next version bump fails the upgrade: " + err.Error(), nil
}

// unreleased lists the objects of next (the output of the next version bump, nextBump) that
// kept, the objects of the chart the release keeps, lacks, sorted: they reach the cluster
// only with that bump.
func unreleased(kept, next []*graph.Object) []graph.ObjectID {
	have := map[graph.ObjectID]bool{}
	for _, o := range kept {
		have[o.ID] = true
	}
	var out []graph.ObjectID
	for _, o := range next {
		if !have[o.ID] {
			out = append(out, o.ID)
		}
	}
	slices.SortFunc(out, func(a, b graph.ObjectID) int { return strings.Compare(a.String(), b.String()) })
	return out
}
