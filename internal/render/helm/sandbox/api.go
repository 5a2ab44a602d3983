package sandbox

import (
	"context"

	"github.com/tiergate/tiergate/internal/render/helm"
)

// RenderFunc is helm.Render's signature: what a worker runs for each request.
type RenderFunc func(ctx context.Context, req helm.Request) (*helm.Result, error)
