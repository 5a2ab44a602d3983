package format

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review"
)

// TestPartialNoteRemoteCharts: HelmReleases whose charts are on hosts not allowed are one
// line grouped by host, and the Kustomizations are counted once.
func TestPartialNoteRemoteCharts(t *testing.T) {
	remote := func(ks, hr, chart, host string) (graph.Partial, review.Unreviewed) {
		hint, also := host, []string(nil)
		if host == "ghcr.io" {
			hint, also = "ghcr.io and pkg-containers.githubusercontent.com", []string{"pkg-containers.githubusercontent.com"}
		}
		reason := "HelmRelease " + hr + " (x.yaml:1) not rendered: chart " + chart + " is remote (allow " + hint + " to render it)"
		return graph.Partial{Kustomization: ks, Reason: reason},
			review.Unreviewed{Cluster: "dev", Kind: "HelmRelease", Name: hr, Kustomization: ks, Reason: reason, Chart: chart, Host: host, AlsoAllow: also}
	}
	r := &review.Report{}
	c := review.ClusterSummary{Name: "dev"}
	for _, in := range [][4]string{
		{"flux-system/apps", "apps/a", "oci://ghcr.io/x/a:1.0.0", "ghcr.io"},
		{"flux-system/apps", "apps/b", "oci://ghcr.io/x/b:1.0.0", "ghcr.io"},
		{"flux-system/infra", "infra/c", "oci://quay.io/x/c:1.0.0", "quay.io"},
	} {
		p, u := remote(in[0], in[1], in[2], in[3])
		c.Partial = append(c.Partial, p)
		r.Unreviewed = append(r.Unreviewed, u)
	}
	c.Partial = append(c.Partial, graph.Partial{Kustomization: "flux-system/apps", Reason: "HelmRelease apps/d (d.yaml:1) not rendered: valuesFrom ConfigMap apps/v is not in the cluster's graph"})
	r.Clusters = []review.ClusterSummary{c}
	want := "\n> ⚠️ <b>Partial render</b>: 2 Kustomizations are reviewed in part (not everything they apply was rendered), so findings may be missing:\n" +
		"> - dev · flux-system/apps: HelmRelease apps/d (d.yaml:1) not rendered: valuesFrom ConfigMap apps/v is not in the cluster's graph\n" +
		"> - 3 HelmReleases not rendered, their charts are remote: allow ghcr.io and pkg-containers.githubusercontent.com (2: apps/a, apps/b), quay.io (1: infra/c) to render them (`--allow-remote`)\n"
	if d := cmp.Diff(want, partialNote(r)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if !strings.Contains(Markdown(r, MarkdownOptions{}), want) {
		t.Error("the comment does not carry the note")
	}
}

// TestRemoteChartSharedByClusters: one HelmRelease file that two clusters apply is one
// HelmRelease to allow and one not reviewed (a cause shared by clusters counts once).
func TestRemoteChartSharedByClusters(t *testing.T) {
	reason := "HelmRelease podinfo/podinfo (infra/podinfo.yaml:2) not rendered: chart oci://quay.io/x/podinfo:6.0.0 is remote (allow quay.io to render it)"
	r := &review.Report{}
	for _, cl := range []string{"prod", "staging"} {
		r.Clusters = append(r.Clusters, review.ClusterSummary{Name: cl, Partial: []graph.Partial{{Kustomization: "flux-system/infra", Reason: reason}}})
		r.Unreviewed = append(r.Unreviewed, review.Unreviewed{Cluster: cl, Kind: "HelmRelease", Name: "podinfo/podinfo", Kustomization: "flux-system/infra",
			Reason: reason, Chart: "oci://quay.io/x/podinfo:6.0.0", Host: "quay.io", File: "infra/podinfo.yaml", Line: 2})
	}
	want := "\n> ⚠️ <b>Partial render</b>: 2 Kustomizations are reviewed in part (not everything they apply was rendered), so findings may be missing:\n" +
		"> - 1 HelmRelease not rendered, its chart is remote: allow quay.io (1: podinfo/podinfo) to render it (`--allow-remote`)\n"
	if d := cmp.Diff(want, partialNote(r)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got, want := NotReviewed(r), "1 HelmRelease not reviewed"; got != want {
		t.Errorf("NotReviewed = %q, want %q", got, want)
	}
}
