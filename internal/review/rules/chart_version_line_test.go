package rules

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestChartVersionUnchangedLine: chart-version-unchanged points at the line that chooses
// the chart's version: spec.chart.spec.version, else spec.chart.spec.chart; for a
// chartRef, the HelmChart's spec.version or the OCIRepository's ref.semver / ref.tag in
// the source's own file.
func TestChartVersionUnchangedLine(t *testing.T) {
	const kept = "chart charts/web changes but its version 1.2.3 does not"
	hr := func(spec string) string {
		return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: web\n  namespace: apps\n" + spec
	}
	const chartSpec = "spec:\n  interval: 10m\n  chart:\n    spec:\n      chart: ./charts/web\n" // chart: on line 10
	cases := []struct {
		name       string
		hr, source string // apps/web.yaml, apps/source.yaml
		file       string
		line       int
		strategy   string // the suggestion's reconcileStrategy part
	}{
		{"spec.chart.spec.version", hr(chartSpec + "      version: '>=1.0.0'\n      sourceRef: {kind: GitRepository, name: flux-system}\n"), "", "apps/web.yaml", 11, ", or set `reconcileStrategy: Revision` in the HelmRelease's spec.chart.spec to rebuild on every commit"},
		{"no version: spec.chart.spec.chart", hr(chartSpec + "      sourceRef: {kind: GitRepository, name: flux-system}\n"), "", "apps/web.yaml", 10, ", or set `reconcileStrategy: Revision` in the HelmRelease's spec.chart.spec to rebuild on every commit"},
		{"chartRef HelmChart", hr("spec:\n  chartRef: {kind: HelmChart, name: web}\n"),
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmChart\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  chart: ./charts/web\n  version: '*'\n", "apps/source.yaml", 8, ", or set `reconcileStrategy: Revision` in the spec of HelmChart web (apps/source.yaml:8) to rebuild on every commit"},
		{"chartRef OCIRepository semver", hr("spec:\n  chartRef: {kind: OCIRepository, name: web}\n"),
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  url: oci://ghcr.io/org/web\n  ref:\n    tag: 1.2.3\n    semver: 1.x\n", "apps/source.yaml", 10, ""},
		{"chartRef OCIRepository tag", hr("spec:\n  chartRef: {kind: OCIRepository, name: web}\n"),
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: web\n  namespace: apps\nspec:\n  url: oci://ghcr.io/org/web\n  ref:\n    tag: 1.2.3\n", "apps/source.yaml", 9, ""},
		{"chartRef source not in the graph", hr("spec:\n  interval: 5m\n  chartRef: {kind: HelmChart, name: gone}\n"), "", "apps/web.yaml", 8, ", or set `reconcileStrategy: Revision` in the spec of HelmChart gone (apps/web.yaml:8) to rebuild on every commit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := releaseCluster(graph.Release{Chart: "charts/web", Version: "1.2.3", ChartKept: kept})
			snap := graph.NewSnapshot("/repo")
			snap.Data["apps/web.yaml"] = []byte(tc.hr)
			c.Source = snap
			ks := c.Kustomizations[c.Order[0]]
			o := ks.Objects[1]
			o.Line, o.Body = 2, body(t, tc.hr)
			if tc.source != "" {
				snap.Data["apps/source.yaml"] = []byte(tc.source)
				src := &graph.Object{Owner: ks.Ref, File: "apps/source.yaml", Line: 2, Body: body(t, tc.source)}
				src.ID = graph.ObjectID{Group: "source.toolkit.fluxcd.io", Kind: src.Body.GetKind(), Namespace: "apps", Name: "web"}
				c.Owners = map[graph.ObjectID][]*graph.Object{src.ID: {src}}
			}
			got := chartVersionUnchanged(c, nil, &Env{})
			if len(got) != 1 || got[0].Rule != "chart-version-unchanged" || got[0].Severity != Warning || got[0].File != tc.file || got[0].Line != tc.line {
				t.Fatalf("got %+v, want one chart-version-unchanged warning at %s:%d", got, tc.file, tc.line)
			}
			want := "Bump `version` in charts/web/Chart.yaml (now 1.2.3)" + tc.strategy + "."
			if got[0].Suggestion != want {
				t.Errorf("suggestion:\n got %s\nwant %s", got[0].Suggestion, want)
			}
		})
	}
}

func body(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := sigsyaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// TestChartVersionUnchangedMovedIn: an object moved from a pruning Kustomization into a chart
// whose version is not bumped is named: the old owner's prune deletes it and nothing creates
// it again before the bump. Not when the old owner does not prune, nor when another owner
// applies it at head.
func TestChartVersionUnchangedMovedIn(t *testing.T) {
	cm := graph.ObjectID{Kind: "ConfigMap", Namespace: "apps", Name: "settings"}
	config := graph.Ref{Namespace: "flux-system", Name: "config"}
	root := graph.Ref{Namespace: "flux-system", Name: "flux-system"}
	const kept = "chart charts/web changes but its version 1.2.3 does not"
	const base = "HelmRelease apps/web does not get this change of its chart (the objects shown are rendered from the chart it keeps, taken to be the base's: " +
		"if earlier commits changed the chart without a bump too, the cluster runs the one packaged when its version or HelmChart spec last changed): " + kept + "."
	const gone = " This change moves ConfigMap/apps/settings into the chart, which the kept chart does not render: the garbage collection of flux-system/config deletes it, " +
		"and nothing creates it again until the chart's version is bumped (helm-controller upgrades a release only when the chart's name or version or the values change, and then with the chart it has)."
	withConfig := func(c *graph.Cluster, prune bool, objs ...*graph.Object) *graph.Cluster {
		ks := &graph.Kustomization{Ref: config, Parent: &root, File: "clusters/dev/config.yaml", Line: 2, Objects: objs}
		ks.Spec.Prune = prune
		c.Kustomizations[config] = ks
		c.Order = append(c.Order, config)
		c.Owners = map[graph.ObjectID][]*graph.Object{}
		for _, o := range objs {
			c.Owners[o.ID] = append(c.Owners[o.ID], o)
		}
		return c
	}
	inConfig := func() *graph.Object {
		return &graph.Object{ID: cm, Owner: config, File: "config/settings.yaml", Line: 2, Body: body(t, configMap("apps", "settings"))}
	}
	for _, tc := range []struct {
		name       string
		base, head *graph.Cluster
		want       string
	}{
		{"moved in from a pruning Kustomization", withConfig(releaseCluster(graph.Release{}), true, inConfig()),
			withConfig(releaseCluster(graph.Release{Chart: "charts/web", Version: "1.2.3", ChartKept: kept, Unreleased: []graph.ObjectID{cm}}), true), base + gone},
		{"negative: the old owner does not prune", withConfig(releaseCluster(graph.Release{}), false, inConfig()),
			withConfig(releaseCluster(graph.Release{Chart: "charts/web", Version: "1.2.3", ChartKept: kept, Unreleased: []graph.ObjectID{cm}}), false), base},
		{"negative: still applied at head", withConfig(releaseCluster(graph.Release{}), true, inConfig()),
			withConfig(releaseCluster(graph.Release{Chart: "charts/web", Version: "1.2.3", ChartKept: kept, Unreleased: []graph.ObjectID{cm}}), true, inConfig()), base},
		{"negative: new in the chart, in no Kustomization before", withConfig(releaseCluster(graph.Release{}), true),
			withConfig(releaseCluster(graph.Release{Chart: "charts/web", Version: "1.2.3", ChartKept: kept, Unreleased: []graph.ObjectID{cm}}), true), base},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := chartVersionUnchanged(tc.head, tc.base, &Env{})
			if len(got) != 1 || got[0].Message != tc.want {
				t.Fatalf("got %+v\nwant one finding with message:\n%s", got, tc.want)
			}
		})
	}
}
