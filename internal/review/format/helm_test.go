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
		"> - 3 HelmReleases not rendered, their charts are remote: allow ghcr.io and pkg-containers.githubusercontent.com (the charts of 2 HelmReleases: apps/a, apps/b), quay.io (the chart of HelmRelease infra/c) to render them (`--allow-remote`)\n"
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
	want := "\n> ⚠️ <b>Partial render</b>: 2 Kustomizations (prod 1, staging 1) are reviewed in part (not everything they apply was rendered), so findings may be missing:\n" +
		"> - 1 HelmRelease not rendered, its chart is remote: allow quay.io (the chart of HelmRelease podinfo/podinfo) to render it (`--allow-remote`)\n"
	if d := cmp.Diff(want, partialNote(r)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got, want := NotReviewed(r), "1 HelmRelease not reviewed"; got != want {
		t.Errorf("NotReviewed = %q, want %q", got, want)
	}
}

// TestNotRenderedCountedOncePerCause: a HelmRelease file two clusters apply is one
// HelmRelease in the verdict, and the note names its Kustomization once with both
// clusters; one that only one cluster applies makes the counts differ, so both say them
// per cluster.
func TestNotRenderedCountedOncePerCause(t *testing.T) {
	pulled := "HelmRelease ingress-nginx/ingress-nginx (infra/ingress-nginx.yaml:11) not rendered: chart https://charts.example.com ingress-nginx:4.11.3 could not be pulled"
	shared := func(cl string) review.Unreviewed {
		return review.Unreviewed{Cluster: cl, Kind: "HelmRelease", Name: "ingress-nginx/ingress-nginx", Kustomization: "flux-system/infra-controllers",
			Reason: pulled, File: "infra/ingress-nginx.yaml", Line: 11}
	}
	r := &review.Report{}
	for _, cl := range []string{"production", "staging"} {
		r.Clusters = append(r.Clusters, review.ClusterSummary{Name: cl, Kustomizations: 4,
			Partial: []graph.Partial{{Kustomization: "flux-system/infra-controllers", Reason: pulled}}})
		r.Unreviewed = append(r.Unreviewed, shared(cl))
	}
	want := "\n> ⚠️ <b>Partial render</b>: 2 Kustomizations (production 1, staging 1) are reviewed in part (not everything they apply was rendered), so findings may be missing:\n" +
		"> - clusters: production, staging · flux-system/infra-controllers: " + esc(pulled) + "\n"
	if d := cmp.Diff(want, partialNote(r)); d != "" {
		t.Errorf("shared (-want +got):\n%s", d)
	}
	if got, want := NotReviewed(r), "1 HelmRelease not reviewed"; got != want {
		t.Errorf("shared: NotReviewed = %q, want %q", got, want)
	}

	only := "HelmRelease web/web (apps/web.yaml:2) not rendered: chart https://charts.example.com web:1.0.0 could not be pulled"
	r.Clusters[0].Partial = append(r.Clusters[0].Partial, graph.Partial{Kustomization: "flux-system/apps", Reason: only})
	r.Unreviewed = append(r.Unreviewed, review.Unreviewed{Cluster: "production", Kind: "HelmRelease", Name: "web/web",
		Kustomization: "flux-system/apps", Reason: only, File: "apps/web.yaml", Line: 2})
	want = "\n> ⚠️ <b>Partial render</b>: 3 Kustomizations (production 2, staging 1) are reviewed in part (not everything they apply was rendered), so findings may be missing:\n" +
		"> - clusters: production, staging · flux-system/infra-controllers: " + esc(pulled) + "\n" +
		"> - production · flux-system/apps: " + esc(only) + "\n"
	if d := cmp.Diff(want, partialNote(r)); d != "" {
		t.Errorf("one more in production (-want +got):\n%s", d)
	}
	if got, want := NotReviewed(r), "2 HelmReleases not reviewed (production 2, staging 1)"; got != want {
		t.Errorf("one more in production: NotReviewed = %q, want %q", got, want)
	}
	if got, want := verdictLine(r), "### ⚠️ tiergate: 2 HelmReleases not reviewed (production 2, staging 1) · no new findings\n"; got != want {
		t.Errorf("verdictLine = %q, want %q", got, want)
	}
}

// TestRemoteChartsSaidInWords: each host's group says what it lists, the charts of how many
// HelmReleases, the first three named; counts that differ by cluster are said per cluster.
func TestRemoteChartsSaidInWords(t *testing.T) {
	r := &review.Report{Clusters: []review.ClusterSummary{{Name: "production"}, {Name: "staging"}}}
	add := func(cl, name string) {
		reason := "HelmRelease " + name + " (apps/" + name[5:] + ".yaml:1) not rendered: chart oci://quay.io/x/" + name[5:] + ":1.0.0 is remote (allow quay.io to render it)"
		for i := range r.Clusters {
			if r.Clusters[i].Name == cl {
				r.Clusters[i].Partial = append(r.Clusters[i].Partial, graph.Partial{Kustomization: "flux-system/apps", Reason: reason})
			}
		}
		r.Unreviewed = append(r.Unreviewed, review.Unreviewed{Cluster: cl, Kind: "HelmRelease", Name: name, Kustomization: "flux-system/apps",
			Reason: reason, Host: "quay.io", File: "apps/" + name[5:] + ".yaml", Line: 1})
	}
	for _, n := range []string{"apps/a", "apps/b", "apps/c", "apps/d", "apps/e"} {
		add("production", n)
	}
	add("staging", "apps/a")
	want := "\n> ⚠️ <b>Partial render</b>: 2 Kustomizations (production 1, staging 1) are reviewed in part (not everything they apply was rendered), so findings may be missing:\n" +
		"> - 5 HelmReleases (production 5, staging 1) not rendered, their charts are remote: allow quay.io (the charts of 5 HelmReleases: apps/a, apps/b, apps/c and 2 more) to render them (`--allow-remote`)\n"
	if d := cmp.Diff(want, partialNote(r)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got, want := NotReviewed(r), "5 HelmReleases not reviewed (production 5, staging 1)"; got != want {
		t.Errorf("NotReviewed = %q, want %q", got, want)
	}
}

// TestNotReviewedNamesOnlyClustersWithCauses: the per-cluster count lists the clusters that
// have a cause, never one with 0 ("production 0" reads as a cluster with a problem).
func TestNotReviewedNamesOnlyClustersWithCauses(t *testing.T) {
	r := &review.Report{Clusters: []review.ClusterSummary{{Name: "production"}, {Name: "staging"}, {Name: "dev"}}}
	reason := "HelmRelease cert-manager/cert-manager (infra/cm.yaml:1) not rendered: its chart is remote"
	for _, cl := range []string{"staging", "dev"} {
		r.Unreviewed = append(r.Unreviewed, review.Unreviewed{Cluster: cl, Kind: "HelmRelease", Name: "cert-manager/cert-manager",
			Kustomization: "flux-system/infra", Reason: reason, File: "infra/cm.yaml", Line: 1})
	}
	r.Unreviewed = append(r.Unreviewed, review.Unreviewed{Cluster: "staging", Kind: "HelmRelease", Name: "web/web",
		Kustomization: "flux-system/apps", Reason: reason, File: "apps/web.yaml", Line: 1})
	if got, want := NotReviewed(r), "2 HelmReleases not reviewed (staging 2, dev 1)"; got != want {
		t.Errorf("NotReviewed = %q, want %q", got, want)
	}
	// Negative: every cluster has every cause, so no per-cluster count at all.
	r.Unreviewed = r.Unreviewed[:2]
	r.Clusters = r.Clusters[1:]
	if got, want := NotReviewed(r), "1 HelmRelease not reviewed"; got != want {
		t.Errorf("NotReviewed = %q, want %q", got, want)
	}
}
