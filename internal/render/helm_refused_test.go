package render

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm"
	"github.com/tiergate/tiergate/internal/render/helm/sandbox"
	"github.com/tiergate/tiergate/internal/render/helmrelease"
)

// failingRenderer is a HelmRenderer whose every render fails with err.
type failingRenderer struct{ err error }

func (f failingRenderer) Render(context.Context, helm.Request) (*helm.Result, error) {
	return nil, f.err
}

// TestHelmReleaseRefused: a render the sandbox stopped (time or memory bound, a closed
// pool) is tiergate's refusal, Limit, so the release is not reviewed; the chart's own
// error is the chart's failure, not Limit, so it is a helm-render-error finding.
func TestHelmReleaseRefused(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		limit bool
	}{
		{"sandbox time", &sandbox.LimitError{Chart: "web", Limit: sandbox.LimitTime, Timeout: 30e9}, true},
		{"sandbox memory", &sandbox.LimitError{Chart: "web", Limit: sandbox.LimitMemory, Bytes: 1 << 30}, true},
		{"pool closed", sandbox.ErrClosed, true},
		{"chart error", errors.New("execution error at (web/templates/x.yaml:1:2): boom"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := merge(bootstrap("dev"), webChart(), map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"), "apps/web.yaml": hr("web", gitChart)})
			g, err := Render(context.Background(), tree(t, files), Options{Helm: failingRenderer{tc.err}})
			if err != nil {
				t.Fatal(err)
			}
			apps := g.Clusters[0].Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
			want := []graph.ReleaseError{{HelmRelease: graph.ObjectID{Group: helmrelease.HelmGroup, Kind: "HelmRelease", Namespace: "apps", Name: "web"},
				Chart: "charts/web", Err: graph.BuildError{Message: tc.err.Error(), File: "apps/web.yaml", Line: 2, Limit: tc.limit}}}
			if d := cmp.Diff(want, apps.HelmReleaseErrors); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
