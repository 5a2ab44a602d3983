package review

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// TestChartErrorIsAFinding: a chart that fails as helm-controller renders it is a new
// helm-render-error finding and is reviewed; a render tiergate's bounds refused (Limit) is
// listed as not reviewed and is no finding.
func TestChartErrorIsAFinding(t *testing.T) {
	hrID := graph.ObjectID{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease", Namespace: "apps", Name: "web"}
	withError := func(limit bool, msg string) *graph.Cluster {
		c := cluster()
		c.Kustomizations[ref].HelmReleaseErrors = []graph.ReleaseError{{HelmRelease: hrID,
			Err: graph.BuildError{Message: msg, File: "apps/web.yaml", Line: 2, Limit: limit}}}
		return c
	}
	env := Options{Env: rules.Env{Catalog: rules.NewCatalog(nil)}}
	type row struct{ Status, Rule, File string }
	cases := []struct {
		name       string
		head       *graph.Cluster
		findings   []row
		unreviewed []Unreviewed
	}{
		{"chart error", withError(false, "execution error at (web/templates/cm.yaml:6:10): image.tag is required"),
			[]row{{"new", "helm-render-error", "apps/web.yaml"}}, nil},
		{"limit", withError(true, "chart web: render exceeded 30s, stopped"), nil,
			[]Unreviewed{{Cluster: "dev", Kind: "HelmRelease", Name: "apps/web", Kustomization: "flux-system/apps",
				Reason: "chart web: render exceeded 30s, stopped", File: "apps/web.yaml", Line: 2}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Review(&graph.Graph{Clusters: []*graph.Cluster{cluster()}}, &graph.Graph{Clusters: []*graph.Cluster{tc.head}}, env)
			var got []row
			for _, f := range r.Findings {
				got = append(got, row{string(f.Status), f.Rule, f.File})
			}
			if d := cmp.Diff(tc.findings, got); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.unreviewed, r.Unreviewed); d != "" {
				t.Errorf("unreviewed (-want +got):\n%s", d)
			}
		})
	}
}
