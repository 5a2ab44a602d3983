package main

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm/sandbox"
	"github.com/tiergate/tiergate/internal/review"
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

// redactedOutput holds what `graph` and `build` write on standard error (warnings, and the
// error they return) until the graph is rendered, then writes it as their standard output
// is written: through review.RedactGraphText of that graph. A Kustomization's build error,
// its Skipped reason and a ref may hold a Secret-derived value (a path, sourceRef or name
// substituted from a Secret).
type redactedOutput struct {
	stderr io.Writer
	warn   bytes.Buffer
}

// flush writes the held warnings to stderr and returns err, both redacted for g (nil: the
// render failed, so no Secret-derived value is known). An *exitError keeps its code.
func (r *redactedOutput) flush(g *graph.Graph, err error) error {
	if g != nil {
		_, _ = io.WriteString(r.stderr, review.RedactGraphText(r.warn.String(), g))
	} else {
		_, _ = r.stderr.Write(r.warn.Bytes())
	}
	r.warn.Reset()
	if err == nil || g == nil {
		return err
	}
	code := 2
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	if errors.Is(err, errFindings) {
		return err
	}
	return &exitError{code: code, err: errors.New(review.RedactGraphText(err.Error(), g))}
}
