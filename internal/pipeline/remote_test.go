package pipeline

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render"
)

func TestRemotePolicy(t *testing.T) {
	repo := func(allow ...string) *config.Config {
		return &config.Config{Remote: &config.Remote{Allow: allow, Timeout: 5 * time.Second}}
	}
	cases := []struct {
		name     string
		operator []string
		cfg      *config.Config
		fork     bool
		want     render.RemotePolicy
	}{
		{"no operator list: the repository alone fetches nothing", nil, repo("github.com"), false, render.RemotePolicy{}},
		{"operator list, no remote key", []string{"github.com"}, &config.Config{}, false, render.RemotePolicy{Allow: []string{"github.com"}}},
		{"fork", []string{"github.com"}, nil, true, render.RemotePolicy{Allow: []string{"github.com"}, Fork: true}},
		{"repository narrows a wildcard", []string{"*.githubusercontent.com", "example.org"}, repo("raw.githubusercontent.com", "evil.example"),
			false, render.RemotePolicy{Allow: []string{"raw.githubusercontent.com"}, Timeout: 5 * time.Second, MaxBytes: config.DefaultRemoteMaxBytes}},
		{"repository cannot widen", []string{"raw.githubusercontent.com"}, repo("*.githubusercontent.com"),
			false, render.RemotePolicy{Allow: []string{"raw.githubusercontent.com"}, Timeout: 5 * time.Second, MaxBytes: config.DefaultRemoteMaxBytes}},
		{"disjoint", []string{"github.com"}, repo("gitlab.com"), false, render.RemotePolicy{Timeout: 5 * time.Second, MaxBytes: config.DefaultRemoteMaxBytes}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := remotePolicy(tc.operator, tc.cfg, tc.fork)
			if d := cmp.Diff(tc.want, got, cmpopts.IgnoreUnexported(render.RemotePolicy{})); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestChartFetcher: charts are pulled only under an allow list, and never for a fork.
func TestChartFetcher(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    render.RemotePolicy
		want bool
	}{
		{"nothing allowed", render.RemotePolicy{}, false},
		{"fork", render.RemotePolicy{Allow: []string{"ghcr.io"}, Fork: true}, false},
		{"allowed", render.RemotePolicy{Allow: []string{"ghcr.io"}}, true},
	} {
		if got := ChartFetcher(tc.p, "") != nil; got != tc.want {
			t.Errorf("%s: fetcher %v, want %v", tc.name, got, tc.want)
		}
	}
}
