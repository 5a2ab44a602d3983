package pipeline

import (
	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render"
)

// RemotePolicy is what a render of one tree may fetch (a review's remotePolicy, for a
// repository's own tree): the hosts both operator (--allow-remote) and cfg's remote.allow
// admit; nothing without an operator list.
func RemotePolicy(operator []string, cfg *config.Config) render.RemotePolicy {
	return remotePolicy(operator, cfg, false)
}
