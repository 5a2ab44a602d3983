package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helmrelease"
)

// releaseCluster is a cluster whose Kustomization flux-system/apps applies HelmRelease
// apps/web (apps/web.yaml:3) with rel, and one of its rendered objects.
func releaseCluster(rel graph.Release) *graph.Cluster {
	ref := graph.Ref{Namespace: "flux-system", Name: "apps"}
	id := graph.ObjectID{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease", Namespace: "apps", Name: "web"}
	rel.HelmRelease = id
	ks := &graph.Kustomization{Ref: ref, Releases: []graph.Release{rel}, Objects: []*graph.Object{
		{ID: graph.ObjectID{Group: "apps", Kind: "Deployment", Namespace: "apps", Name: "web"}, Owner: ref, File: "apps/web.yaml", Line: 3, HelmRelease: "apps/web"},
		{ID: id, Owner: ref, File: "apps/web.yaml", Line: 3},
	}}
	return &graph.Cluster{Name: "dev", Order: []graph.Ref{ref}, Kustomizations: map[graph.Ref]*graph.Kustomization{ref: ks}}
}

var webHR = &graph.ObjectID{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease", Namespace: "apps", Name: "web"}

func TestHelmRenderApproximate(t *testing.T) {
	finding := func(msg, suggestion string) []Finding {
		return []Finding{{Rule: "helm-render-approximate", Severity: Notice, Cluster: "dev", Object: webHR, Kustomization: "flux-system/apps",
			File: "apps/web.yaml", Line: 3, Message: msg, Suggestion: suggestion}}
	}
	const prefix = "HelmRelease apps/web is rendered offline with assumptions, so its objects may differ in the cluster: "
	for _, tc := range []struct {
		name string
		rel  graph.Release
		want []Finding
	}{
		{"exact render", graph.Release{Chart: "charts/web", Version: "1.0.0"}, nil},
		{"lookup and random functions", graph.Release{Approximate: []string{"lookup", "randAlphaNum"}}, finding(
			prefix+"template functions lookup, randAlphaNum (lookup returns {} without a cluster; time, random and key functions are fixed).",
			"Check what the templates calling them render once the release is installed.")},
		{"valuesFrom Secret placeholders", graph.Release{Approximate: []string{"valuesFrom Secret values replaced by placeholders"}}, finding(
			prefix+"valuesFrom Secret values replaced by placeholders (tiergate never shows Secret values, nor lets a chart transform one).", "No action needed.")},
		{"substituted Secret placeholders", graph.Release{Approximate: []string{"valuesFrom Secret values replaced by placeholders", "spec.values substituted from a Secret replaced by placeholders"}}, finding(
			prefix+"valuesFrom Secret values replaced by placeholders, spec.values substituted from a Secret replaced by placeholders (tiergate never shows Secret values, nor lets a chart transform one).", "No action needed.")},
		{"chart files and release fields from a Secret", graph.Release{Approximate: []string{"lookup", "Secret values in chart files replaced by placeholders", "release name, namespace or valuesFrom targetPath from a Secret replaced by placeholders"}}, finding(
			prefix+"template functions lookup (lookup returns {} without a cluster; time, random and key functions are fixed); Secret values in chart files replaced by placeholders, release name, namespace or valuesFrom targetPath from a Secret replaced by placeholders (tiergate never shows Secret values, nor lets a chart transform one).",
			"Check what the templates calling them render once the release is installed.")},
		{"short Secret value in chart files", graph.Release{Approximate: []string{"Secret values in chart files replaced by placeholders", helmrelease.UnmaskedFilesNote}}, finding(
			prefix+"Secret values in chart files replaced by placeholders (tiergate never shows Secret values, nor lets a chart transform one); "+helmrelease.UnmaskedFilesNote+".",
			"Give the Secrets a chart's files hold values of 4 bytes or more that are not common words, or keep those files out of the chart (.helmignore).")},
		{"schema $ref not read", graph.Release{Approximate: []string{"schema $ref https://example.com/s.json"}}, finding(
			prefix+"values.schema.json $ref https://example.com/s.json not read (only the chart's own files are), so the values are not checked against it.",
			"helm-controller fetches the $ref and validates the values against it: check them with `helm lint`.")},
		{"unknown scope", graph.Release{Notes: []string{"scope of Widget.example.com unknown: taken as namespaced"}}, finding(
			prefix+"scope of Widget.example.com unknown: taken as namespaced.",
			"Add the kind's CRD to the graph or to .tiergate.yaml preinstalledCRDs so that its scope is known.")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := helmApproximate(releaseCluster(tc.rel), nil, &Env{})
			if d := cmp.Diff(tc.want, got, cmpopts.IgnoreUnexported(Finding{})); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestChartVersionUnchanged(t *testing.T) {
	const kept = "chart charts/web changes but its version 1.2.3 does not, and source-controller rebuilds a chart under reconcileStrategy ChartVersion only when the version changes: the release keeps the chart it has"
	got := chartVersionUnchanged(releaseCluster(graph.Release{Chart: "charts/web", Version: "1.2.3", ChartKept: kept}), nil, &Env{})
	want := []Finding{{Rule: "chart-version-unchanged", Severity: Warning, Cluster: "dev", Object: webHR, Kustomization: "flux-system/apps", File: "apps/web.yaml", Line: 3,
		Message:    "HelmRelease apps/web does not get this change of its chart (the objects shown are rendered from the chart it keeps, taken to be the base's: if earlier commits changed the chart without a bump too, the cluster runs the one packaged when its version or HelmChart spec last changed): " + kept + ".",
		Suggestion: "Bump `version` in charts/web/Chart.yaml (now 1.2.3), or set `reconcileStrategy: Revision` in the HelmRelease's spec.chart.spec to rebuild on every commit."}}
	if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Finding{})); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got := chartVersionUnchanged(releaseCluster(graph.Release{Chart: "charts/web", Version: "1.2.4"}), nil, &Env{}); len(got) != 0 {
		t.Errorf("a chart built from the tree: %+v, want none", got)
	}
}

// TestHelmRenderApproximateKey: a change of only the reasons keeps one notice for one
// HelmRelease (identity is rule, cluster and object, not the text), and another
// HelmRelease is another notice.
func TestHelmRenderApproximateKey(t *testing.T) {
	base := helmApproximate(releaseCluster(graph.Release{Approximate: []string{"lookup"}}), nil, &Env{})
	head := helmApproximate(releaseCluster(graph.Release{Approximate: []string{"randAlphaNum", "valuesFrom Secret values replaced by placeholders"},
		Notes: []string{"scope of Widget.example.com unknown: taken as namespaced"}}), nil, &Env{})
	if len(base) != 1 || len(head) != 1 {
		t.Fatalf("got %d and %d findings, want 1 and 1", len(base), len(head))
	}
	if base[0].Message == head[0].Message {
		t.Fatalf("messages are equal, the test needs them to differ: %q", base[0].Message)
	}
	if d := cmp.Diff(base[0].Key(), head[0].Key()); d != "" {
		t.Errorf("key changed with the reasons (-base +head):\n%s", d)
	}
	other := head[0]
	other.Object = &graph.ObjectID{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease", Namespace: "apps", Name: "api"}
	if other.Key() == head[0].Key() {
		t.Errorf("two HelmReleases share the key %q", other.Key())
	}
}
