package render

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestHelmReleaseChartVersionKept: an in-repo chart whose files change without a version
// bump is not rebuilt under reconcileStrategy ChartVersion (the default), so the head
// renders the chart the HelmChart holds (the base's) with the head's values, and says so,
// naming Helm's error when the tree's chart fails (only then: a tree chart that renders
// adds nothing); a version bump, reconcileStrategy Revision, a changed HelmChart spec or no prior render
// the tree's chart.
func TestHelmReleaseChartVersionKept(t *testing.T) {
	const ref = "Deployment.apps/apps/web-web"
	renderBoth := func(t *testing.T, baseSpec, headSpec []string, change func(map[string]string)) (*graph.Cluster, *graph.Cluster) {
		t.Helper()
		files := merge(bootstrap("dev"), webChart(), map[string]string{
			"clusters/dev/apps.yaml": ks("apps", "./apps"),
			"apps/web.yaml":          hr("web", baseSpec...),
		})
		base, err := Render(context.Background(), tree(t, files), Options{Config: &config.Config{}})
		if err != nil {
			t.Fatal(err)
		}
		files["apps/web.yaml"] = hr("web", headSpec...)
		change(files)
		head, err := Render(context.Background(), tree(t, files), Options{Config: &config.Config{}, Prior: base})
		if err != nil {
			t.Fatal(err)
		}
		return base.Clusters[0], head.Clusters[0]
	}
	// view is the Deployment's replicas and image pull policy, and the release's ChartKept.
	view := func(t *testing.T, c *graph.Cluster) []string {
		t.Helper()
		ks := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
		out := []string{}
		for _, o := range ks.Objects {
			if o.ID.String() == ref {
				r, _, _ := unstructuredField(o.Body.Object, "spec", "replicas")
				p, _, _ := unstructuredField(o.Body.Object, "spec", "template", "spec", "containers")
				out = append(out, "replicas="+toString(r), "policy="+toString(p.([]any)[0].(map[string]any)["imagePullPolicy"]))
			}
		}
		for _, r := range ks.Releases {
			out = append(out, "kept="+r.ChartKept)
		}
		for _, e := range ks.HelmReleaseErrors {
			out = append(out, "error="+e.Err.Message)
		}
		return out
	}
	const kept = "kept=chart charts/web changes but its version 1.2.3 does not, and source-controller rebuilds a chart under reconcileStrategy ChartVersion only when the version changes: the release keeps the chart it has"
	pullPolicy := func(files map[string]string) {
		files["charts/web/templates/deploy.yaml"] = strings.Replace(files["charts/web/templates/deploy.yaml"], "- name: web\n", "- name: web\n          imagePullPolicy: Always\n", 1)
	}
	bump := func(files map[string]string) {
		pullPolicy(files)
		files["charts/web/Chart.yaml"] = strings.Replace(files["charts/web/Chart.yaml"], "version: 1.2.3", "version: 1.2.4", 1)
	}
	revision := strings.Replace(gitChart, "chart: ./charts/web", "chart: ./charts/web\n      reconcileStrategy: Revision", 1)
	interval := strings.Replace(gitChart, "chart: ./charts/web", "chart: ./charts/web\n      interval: 5m", 1)
	for _, tc := range []struct {
		name               string
		baseSpec, headSpec []string
		change             func(map[string]string)
		want               []string
	}{
		{"template changes, version does not: the base's chart with the head's values", []string{gitChart}, []string{gitChart, "values: {replicas: 3}"}, pullPolicy,
			[]string{"replicas=3", "policy=<nil>", kept}},
		{"a failing template without a bump is not released either, and the next bump's failure is named", []string{gitChart}, []string{gitChart},
			func(f map[string]string) {
				f["charts/web/templates/role.yaml"] = "{{ required \"role.name must be set\" .Values.role }}\n"
			},
			[]string{"replicas=1", "policy=<nil>", kept + "; the changed chart itself fails to render, so its next version bump fails the upgrade: " +
				"render HelmRelease apps/web (chart web 1.2.3): execution error at (web/templates/role.yaml:1:3): role.name must be set"}},
		{"version bumped", []string{gitChart}, []string{gitChart}, bump, []string{"replicas=1", "policy=Always", "kept="}},
		{"reconcileStrategy Revision", []string{revision}, []string{revision}, pullPolicy, []string{"replicas=1", "policy=Always", "kept="}},
		{"HelmChart spec changes: a new generation forces the build", []string{gitChart}, []string{interval}, pullPolicy, []string{"replicas=1", "policy=Always", "kept="}},
		{"HelmRelease interval is the HelmChart's: a change forces the build", []string{gitChart}, []string{gitChart},
			func(f map[string]string) {
				pullPolicy(f)
				f["apps/web.yaml"] = strings.Replace(f["apps/web.yaml"], "interval: 1h", "interval: 2h", 1)
			},
			[]string{"replicas=1", "policy=Always", "kept="}},
		{"nothing changes", []string{gitChart}, []string{gitChart}, func(map[string]string) {}, []string{"replicas=1", "policy=<nil>", "kept="}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, head := renderBoth(t, tc.baseSpec, tc.headSpec, tc.change)
			if d := cmp.Diff(tc.want, view(t, head)); d != "" {
				t.Errorf("head (-want +got):\n%s", d)
			}
		})
	}
	// Without a prior (a HelmRelease new at head), the chart is built from the tree.
	files := merge(bootstrap("dev"), webChart(), map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"), "apps/web.yaml": hr("web", gitChart)})
	pullPolicy(files)
	g, err := Render(context.Background(), tree(t, files), Options{Config: &config.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"replicas=1", "policy=Always", "kept="}, view(t, g.Clusters[0])); d != "" {
		t.Errorf("no prior (-want +got):\n%s", d)
	}
}

func toString(v any) string {
	if v == nil {
		return "<nil>"
	}
	switch x := v.(type) {
	case string:
		return x
	case int64:
		return itoa(int(x))
	}
	return "?"
}

// TestKeptChartGraphKeyedByPrior: a graph holding an in-repo chart depends on the prior it
// was rendered over (keptChart), so a shared Cache gives the same tree rendered over
// another prior, or over none, its own render: the head tree rendered first as a base
// (no prior) keeps nothing, and then over the base keeps the base's chart; in the other
// order the same.
func TestKeptChartGraphKeyedByPrior(t *testing.T) {
	files := merge(bootstrap("dev"), webChart(), map[string]string{
		"clusters/dev/apps.yaml": ks("apps", "./apps"),
		"apps/web.yaml":          hr("web", gitChart),
	})
	baseDir := tree(t, files)
	files["charts/web/templates/deploy.yaml"] = strings.Replace(files["charts/web/templates/deploy.yaml"], "- name: web\n", "- name: web\n          imagePullPolicy: Always\n", 1)
	headDir := tree(t, files)
	kept := func(g *graph.Graph) string {
		var out []string
		for _, r := range g.Clusters[0].Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].Releases {
			out = append(out, r.ChartKept)
		}
		return strings.Join(out, ",")
	}
	const keptMsg = "chart charts/web changes but its version 1.2.3 does not, and source-controller rebuilds a chart under reconcileStrategy ChartVersion only when the version changes: the release keeps the chart it has"
	for _, headFirstAlone := range []bool{true, false} {
		cache := NewCache(0)
		render := func(dir string, prior *graph.Graph) *graph.Graph {
			t.Helper()
			src, err := fsys.ReadSource(dir, graph.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			src.ID = fsys.GitTreeID(dir) // an id: the Cache keeps the graph
			g, err := RenderSource(context.Background(), src, Options{Config: &config.Config{}, Cache: cache, Prior: prior})
			if err != nil {
				t.Fatal(err)
			}
			return g
		}
		base := render(baseDir, nil)
		var alone, over *graph.Graph
		if headFirstAlone {
			alone, over = render(headDir, nil), render(headDir, base)
		} else {
			over, alone = render(headDir, base), render(headDir, nil)
		}
		if got := kept(alone); got != "" {
			t.Errorf("headFirstAlone=%v: head rendered over no prior keeps %q, want nothing", headFirstAlone, got)
		}
		if got := kept(over); got != keptMsg {
			t.Errorf("headFirstAlone=%v: head rendered over the base keeps %q, want %q", headFirstAlone, got, keptMsg)
		}
	}
}

// TestKeptChartUnreleased: a template added to an unbumped chart renders nothing at head
// (the kept chart lacks it), and the release lists its object as Unreleased, what the next
// version bump brings; none when the chart is bumped or nothing is added.
func TestKeptChartUnreleased(t *testing.T) {
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n"
	for _, tc := range []struct {
		name    string
		version string
		add     bool
		want    []graph.ObjectID
	}{
		{"a template added without a bump", "1.2.3", true, []graph.ObjectID{{Kind: "ConfigMap", Namespace: "apps", Name: "settings"}}},
		{"negative: bumped", "1.2.4", true, nil},
		{"negative: nothing added", "1.2.3", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := merge(bootstrap("dev"), webChart(), map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"), "apps/web.yaml": hr("web", gitChart)})
			base, err := Render(context.Background(), tree(t, files), Options{Config: &config.Config{}})
			if err != nil {
				t.Fatal(err)
			}
			if tc.add {
				files["charts/web/templates/settings.yaml"] = cm
			}
			files["charts/web/Chart.yaml"] = strings.Replace(files["charts/web/Chart.yaml"], "version: 1.2.3", "version: "+tc.version, 1)
			head, err := Render(context.Background(), tree(t, files), Options{Config: &config.Config{}, Prior: base})
			if err != nil {
				t.Fatal(err)
			}
			ks := head.Clusters[0].Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
			if len(ks.Releases) != 1 {
				t.Fatalf("releases: %+v", ks.Releases)
			}
			if d := cmp.Diff(tc.want, ks.Releases[0].Unreleased); d != "" {
				t.Errorf("Unreleased (-want +got):\n%s", d)
			}
		})
	}
}
