package helm

import (
	"context"
	"errors"
)

// Render renders req as helm-controller installs it. The error is the chart's failure
// (data for callers), never a panic.
func Render(ctx context.Context, req Request) (*Result, error) {
	return nil, errors.New("helm: Render is not implemented yet")
}
