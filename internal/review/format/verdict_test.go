package format

import (
	"testing"

	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/rules"
)

func TestVerdictLineNotReviewed(t *testing.T) {
	two := []review.Unreviewed{{Cluster: "dev", Kind: "Kustomization", Name: "flux-system/apps"}, {Cluster: "dev", Kind: "Kustomization", Name: "flux-system/infra"}}
	clusters := []review.ClusterSummary{{Name: "dev", Kustomizations: 78}, {Name: "prod", Kustomizations: 1}}
	for _, c := range []struct {
		name string
		rep  review.Report
		want string
	}{
		{"all reviewed", review.Report{Clusters: clusters}, "### ✅ tiergate: no new findings\n"},
		{"not reviewed is never ✅", review.Report{Clusters: clusters, Unreviewed: two}, "### ⚠️ tiergate: 2 of 79 Kustomizations not reviewed · no new findings\n"},
		{"an error stays ❌", review.Report{Clusters: clusters, Unreviewed: two[:1], Findings: []rules.Finding{{Severity: rules.Error, Status: rules.StatusNew}}},
			"### ❌ tiergate: 1 of 79 Kustomizations not reviewed · 1 new error\n"},
		{"one Kustomization", review.Report{Clusters: []review.ClusterSummary{{Kustomizations: 1}}, Unreviewed: two[:1]}, "### ⚠️ tiergate: 1 of 1 Kustomization not reviewed · no new findings\n"},
		{"other kinds are counted by kind", review.Report{Clusters: clusters, Unreviewed: []review.Unreviewed{{Kind: "ResourceSet", Name: "flux-system/previews"}, {Kind: "HelmRelease", Name: "web/web"}, {Kind: "ResourceSet", Name: "flux-system/tenants"}}},
			"### ⚠️ tiergate: 1 HelmRelease not reviewed, 2 ResourceSets not reviewed · no new findings\n"},
		{"Kustomizations first", review.Report{Clusters: clusters, Unreviewed: append([]review.Unreviewed{{Kind: "ResourceSet", Name: "flux-system/previews"}}, two[:1]...)},
			"### ⚠️ tiergate: 1 of 79 Kustomizations not reviewed, 1 ResourceSet not reviewed · no new findings\n"},
	} {
		if got := verdictLine(&c.rep); got != c.want {
			t.Errorf("%s: verdictLine = %q, want %q", c.name, got, c.want)
		}
	}
}
