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
// is written: through the review.GraphTextRedactor of that graph, made once (rendered). A
// Kustomization's build error, its Skipped reason and a ref may hold a Secret-derived
// value (a path, sourceRef or name substituted from a Secret).
type redactedOutput struct {
	stderr io.Writer
	warn   bytes.Buffer
	// redact is the rendered graph's redaction; nil when the render failed (no
	// Secret-derived value is known).
	redact func(string) string
}

// graphRedactor makes the redaction of a rendered graph; a variable for tests to count.
var graphRedactor = func(g *graph.Graph) func(string) string { return review.GraphTextRedactor(g) }

// rendered makes the redaction of g, the render's graph (nil: it failed), for flush and
// for standard output (text).
func (r *redactedOutput) rendered(g *graph.Graph) {
	if g != nil {
		r.redact = graphRedactor(g)
	}
}

// text is s redacted for the rendered graph.
func (r *redactedOutput) text(s string) string {
	if r.redact == nil {
		return s
	}
	return r.redact(s)
}

// flush writes the held warnings to stderr and returns err, both redacted for the rendered
// graph. An *exitError keeps its code.
func (r *redactedOutput) flush(err error) error {
	_, _ = io.WriteString(r.stderr, r.text(r.warn.String()))
	r.warn.Reset()
	if err == nil || r.redact == nil {
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
	return &exitError{code: code, err: errors.New(r.redact(err.Error()))}
}
