package main

import (
	"context"
	"io"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm/sandbox"
)

// renderTree renders one tree for `graph` and `build` as a review renders its head: the
// remote policy of --allow-remote narrowed by cfg, charts pulled from the hosts it allows
// and rendered in a sandbox Pool (the tree may be a PR's checkout).
// The persistent cache of c keeps builds and pulled charts across runs; warnings go to warn.
func renderTree(ctx context.Context, src *fsys.Source, cfg *config.Config, clusters, allowRemote []string, limits graph.Limits, c *cacheFlags, warn io.Writer) (*graph.Graph, error) {
	pool := sandbox.NewPool(sandbox.Options{})
	defer pool.Close()
	cache, charts, done := c.openCache(warn)
	defer done()
	remote := pipeline.RemotePolicy(allowRemote, cfg)
	return render.RenderSource(ctx, src, render.Options{Config: cfg, Clusters: clusters, SourceIgnore: true,
		Remote: remote, Limits: limits, Helm: pool, Charts: pipeline.ChartFetcher(remote, charts), Cache: cache})
}
