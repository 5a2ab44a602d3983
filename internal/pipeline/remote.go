package pipeline

import (
	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/helm/fetch"
)

// remotePolicy is what a review may fetch: the hosts both the operator (operator, the
// --allow-remote list) and the repository's remote.allow admit. The configuration comes
// from the pull request, so it can only narrow what the operator allowed; with no operator
// list nothing is fetched, and nothing from a fork.
func remotePolicy(operator []string, cfg *config.Config, fork bool) render.RemotePolicy {
	p := render.RemotePolicy{Fork: fork}
	if len(operator) == 0 {
		return p
	}
	if cfg == nil || cfg.Remote == nil {
		p.Allow = operator
		return p
	}
	for _, o := range operator {
		for _, c := range cfg.Remote.Allow {
			if n := narrower(o, c); n != "" {
				p.Allow = append(p.Allow, n)
			}
		}
	}
	p.Timeout, p.MaxBytes = cfg.Remote.Timeout, cfg.Remote.MaxBytes
	if p.Timeout == 0 {
		p.Timeout = config.DefaultRemoteTimeout
	}
	if p.MaxBytes == 0 {
		p.MaxBytes = config.DefaultRemoteMaxBytes
	}
	return p
}

// narrower returns the host pattern that a and b both admit ("github.com", "*.example.com"),
// or "" when they share none: the narrower of the two when the other one admits it.
func narrower(a, b string) string {
	admits := func(pattern, p string) bool { return (&config.Remote{Allow: []string{pattern}}).Allows(p) }
	switch {
	case a == b || admits(b, a):
		return a
	case admits(a, b):
		return b
	}
	return ""
}

// ChartFetcher pulls remote charts from the hosts p allows, one per review so that base and
// head share tag and index resolutions; nil when nothing remote may be fetched (no allow
// list, or a fork).
func ChartFetcher(p render.RemotePolicy, cacheDir string) render.ChartFetcher {
	if p.Fork || len(p.Allow) == 0 {
		return nil
	}
	return fetch.New(fetch.Policy{Allow: p.Allow, CacheDir: cacheDir, Timeout: p.Timeout})
}
