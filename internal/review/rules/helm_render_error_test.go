package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// widgetHR is HelmRelease widgets/<name> of the in-repo chart charts/<chart>; extra lines
// continue its spec (two spaces in), then its required interval. kind: is on line 2.
func widgetHR(name, chart string, extra ...string) string {
	rest := []string{"spec:", "  chart:", "    spec:", "      chart: ./charts/" + chart,
		"      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}"}
	for _, l := range extra {
		rest = append(rest, "  "+l)
	}
	// The CRD requires spec.interval; last, so that the lines above keep their numbers.
	rest = append(rest, "  interval: 10m")
	return obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "widgets", name, rest...)
}

// TestHelmRenderError: a chart whose `required` fails is a finding on the HelmRelease's
// line (it sets no values) with Helm's message; a chart that renders is none, and a render tiergate's own
// bounds refused (Limit) is no finding either: it is "not reviewed".
func TestHelmRenderError(t *testing.T) {
	chart := map[string]string{
		"charts/app/Chart.yaml":        "apiVersion: v2\nname: app\nversion: 0.1.0\n",
		"charts/app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  tag: {{ required \"image.tag is required\" .Values.image.tag | quote }}\n",
		"charts/app/values.yaml":       "image: {}\n",
		tierFile("apps"):               tier("apps", "./apps", true),
		"apps/ns.yaml":                 namespaceObj("widgets"),
	}
	t.Run("required fails", func(t *testing.T) {
		t.Parallel()
		c := renderTree(t, merge(chart, map[string]string{"apps/hr.yaml": widgetHR("app", "app")}))
		checkBuilt(t, c)
		got := helmRenderError(c, nil, testEnv())
		checkFindings(t, got, []want{{Rule: "helm-render-error", Severity: Error, Kustomization: "flux-system/apps",
			Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/app", File: "apps/hr.yaml", Line: 2,
			Msg:  []string{"HelmRelease widgets/app's chart fails to render as helm-controller renders it", "render HelmRelease widgets/app (chart app 0.1.0): execution error at (app/templates/cm.yaml:6:10): image.tag is required"},
			Sugg: []string{"Set `image.tag` in the values of HelmRelease widgets/app (spec.values, apps/hr.yaml:2, or the valuesFrom source that holds it): template app/templates/cm.yaml:6:10 stops with \"image.tag is required\" without it."}}})
	})
	// A chart's `fail` text is its own: a long one is cut at maxRenderMessage bytes, on a
	// rune boundary, saying how much was cut.
	t.Run("long fail message is cut", func(t *testing.T) {
		t.Parallel()
		long := map[string]string{"charts/long/Chart.yaml": "apiVersion: v2\nname: long\nversion: 0.1.0\n",
			"charts/long/templates/cm.yaml": "{{ fail (repeat 2000 \"abcdefghijé\") }}\n"}
		c := renderTree(t, merge(chart, long, map[string]string{"apps/hr.yaml": widgetHR("long", "long")}))
		checkBuilt(t, c)
		got := helmRenderError(c, nil, testEnv())
		if len(got) != 1 {
			t.Fatalf("findings:\n%s", dump(got))
		}
		prefix := "HelmRelease widgets/long's chart fails to render as helm-controller renders it, so its install or upgrade fails and the release keeps what it has: " +
			"render HelmRelease widgets/long (chart long 0.1.0): execution error at (long/templates/cm.yaml:1:3): "
		helmMsg := "render HelmRelease widgets/long (chart long 0.1.0): execution error at (long/templates/cm.yaml:1:3): " + strings.Repeat("abcdefghijé", 2000)
		kept := helmMsg[:3999] // byte 4000 is inside an "é"
		want := "HelmRelease widgets/long's chart fails to render as helm-controller renders it, so its install or upgrade fails and the release keeps what it has: " +
			kept + fmt.Sprintf(" … (Helm's message cut here: %d more bytes)", len(helmMsg)-3999)
		wantSugg := "Give HelmRelease widgets/long the values its chart asks for (`required`/`fail` in template long/templates/cm.yaml:1:3: \"" +
			strings.Repeat("abcdefghijé", 25) + "…\"), in spec.values (apps/hr.yaml:2) or the valuesFrom source that holds them."
		if got[0].Suggestion != wantSugg {
			t.Errorf("suggestion (%d bytes) = %q\nwant %q", len(got[0].Suggestion), got[0].Suggestion, wantSugg)
		}
		if !strings.HasPrefix(got[0].Message, prefix) || got[0].Message != want {
			t.Errorf("start %q\nmessage (%d bytes) ends\n%s\nwant (%d bytes)\n%s", got[0].Message[:260], len(got[0].Message), got[0].Message[len(got[0].Message)-120:], len(want), want[len(want)-120:])
		}
	})
	t.Run("renders", func(t *testing.T) {
		t.Parallel()
		c := renderTree(t, merge(chart, map[string]string{"apps/hr.yaml": widgetHR("app", "app", "values: {image: {tag: v1}}")}))
		checkBuilt(t, c)
		checkFindings(t, helmRenderError(c, nil, testEnv()), nil)
	})
	t.Run("limit is not a finding", func(t *testing.T) {
		ref := graph.Ref{Namespace: "flux-system", Name: "apps"}
		c := &graph.Cluster{Name: "dev", Order: []graph.Ref{ref}, Kustomizations: map[graph.Ref]*graph.Kustomization{ref: {Ref: ref,
			HelmReleaseErrors: []graph.ReleaseError{{HelmRelease: graph.ObjectID{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease", Namespace: "widgets", Name: "app"},
				Err: graph.BuildError{Message: "chart app: render exceeded 30s, stopped", File: "apps/hr.yaml", Line: 2, Limit: true}}}}}}
		checkFindings(t, helmRenderError(c, nil, testEnv()), nil)
	})
}

// A helm-render-error whose cause is written in the repository is placed there: a chart
// folder that does not exist at the spec.chart.spec.chart (or spec.chartRef) line, naming
// the folder and the source; a template that does not parse at the template's file and
// line, in one sentence with text/template's whole reason, Helm's terse message in Details.
// A parse error in a chart tiergate did not load from the repository stays on the HelmRelease.
func TestHelmRenderErrorLocated(t *testing.T) {
	base := map[string]string{
		tierFile("apps"): tier("apps", "./apps", true),
		"apps/ns.yaml":   namespaceObj("widgets"),
	}
	id := &graph.ObjectID{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease", Namespace: "widgets", Name: "app"}
	one := func(file string, line int, msg, sugg, details string) []Finding {
		return []Finding{{Rule: "helm-render-error", Severity: Error, Cluster: "dev", Object: id, Kustomization: "flux-system/apps",
			Message: msg, Suggestion: sugg, File: file, Line: line, Details: details}}
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []Finding
	}{
		{name: "chart folder missing", files: map[string]string{"apps/hr.yaml": widgetHR("app", "nope")},
			want: one("apps/hr.yaml", 9,
				`HelmRelease widgets/app's chart cannot be loaded: spec.chart.spec.chart "./charts/nope" of GitRepository/flux-system/flux-system (whose artifact is the repository root) names the folder charts/nope, which is not in the repository, so source-controller's HelmChart fails and helm-controller installs or upgrades nothing: the release keeps what it has.`,
				"Point HelmRelease widgets/app at the folder that holds the chart's Chart.yaml (apps/hr.yaml:9): the path is relative to the root of the source's artifact, not to the HelmRelease's file; or add the folder charts/nope with the chart's Chart.yaml and templates.", "")},
		{name: "HelmChart chartRef folder missing", files: map[string]string{
			"apps/hc.yaml": obj("source.toolkit.fluxcd.io/v1", "HelmChart", "widgets", "app", "spec:", "  chart: ./charts/gone", "  interval: 10m",
				"  sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}"),
			"apps/hr.yaml": obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "widgets", "app", "spec:", "  interval: 10m", "  chartRef:", "    kind: HelmChart", "    name: app")},
			want: one("apps/hr.yaml", 8,
				`HelmRelease widgets/app's chart cannot be loaded: spec.chart "./charts/gone" of HelmChart widgets/app (spec.chartRef) in GitRepository/flux-system/flux-system (whose artifact is the repository root) names the folder charts/gone, which is not in the repository, so source-controller's HelmChart fails and helm-controller installs or upgrades nothing: the release keeps what it has.`,
				"Point HelmRelease widgets/app at the folder that holds the chart's Chart.yaml (apps/hr.yaml:8): the path is relative to the root of the source's artifact, not to the HelmRelease's file; or add the folder charts/gone with the chart's Chart.yaml and templates.", "")},
		{name: "template does not parse", files: map[string]string{
			"charts/app/Chart.yaml":         "apiVersion: v2\nname: app\nversion: 0.1.0\n",
			"charts/app/templates/ok.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n",
			"charts/app/templates/bad.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name -oops }}\n",
			"apps/hr.yaml":                  widgetHR("app", "app")},
			want: one("charts/app/templates/bad.yaml", 4,
				`Template charts/app/templates/bad.yaml of HelmRelease widgets/app's chart does not parse at line 4 (bad number syntax: "-o"), so helm-controller renders none of the chart: its install or upgrade fails and the release keeps what it has.`,
				"Fix the Go template syntax of charts/app/templates/bad.yaml:4 (`helm template charts/app` shows the same error); every HelmRelease of this chart fails until then.",
				`render HelmRelease widgets/app (chart app 0.1.0): parse error at (app/templates/bad.yaml:4): "-o"`)},
		{name: "subchart template does not parse", files: map[string]string{
			"charts/app/Chart.yaml":                      "apiVersion: v2\nname: app\nversion: 0.1.0\ndependencies:\n  - name: sub\n    version: 0.2.0\n",
			"charts/app/charts/sub/Chart.yaml":           "apiVersion: v2\nname: sub\nversion: 0.2.0\n",
			"charts/app/charts/sub/templates/cm.yaml":    "a: 1\n{{ if .Values.x }}\nb: 2\n",
			"charts/app/charts/sub/templates/other.yaml": "c: 3\n",
			"apps/hr.yaml":                               widgetHR("app", "app")},
			want: one("charts/app/charts/sub/templates/cm.yaml", 4,
				`Template charts/app/charts/sub/templates/cm.yaml of HelmRelease widgets/app's chart does not parse at line 4 (unexpected EOF), so helm-controller renders none of the chart: its install or upgrade fails and the release keeps what it has.`,
				"Fix the Go template syntax of charts/app/charts/sub/templates/cm.yaml:4 (`helm template charts/app` shows the same error); every HelmRelease of this chart fails until then.",
				`render HelmRelease widgets/app (chart app 0.1.0): parse error at (app/charts/sub/templates/cm.yaml:4): unexpected EOF`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, merge(base, tc.files))
			got := helmRenderError(c, nil, testEnv())
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(Finding{}), cmpopts.IgnoreFields(Finding{}, "resolvedAdvice")); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
		})
	}
	// Negative: the same parse error from a chart not loaded from the repository (Chart
	// "") names no file tiergate can point at: the finding stays on the HelmRelease.
	t.Run("remote chart parse error stays on the HelmRelease", func(t *testing.T) {
		ref := graph.Ref{Namespace: "flux-system", Name: "apps"}
		c := &graph.Cluster{Name: "dev", Order: []graph.Ref{ref}, Kustomizations: map[graph.Ref]*graph.Kustomization{ref: {Ref: ref,
			HelmReleaseErrors: []graph.ReleaseError{{HelmRelease: *id,
				Err: graph.BuildError{Message: `render HelmRelease widgets/app (chart app 0.1.0): parse error at (app/templates/bad.yaml:4): "-o"`, File: "apps/hr.yaml", Line: 2}}}}}}
		got := helmRenderError(c, nil, testEnv())
		want := one("apps/hr.yaml", 2,
			`HelmRelease widgets/app's chart fails to render as helm-controller renders it, so its install or upgrade fails and the release keeps what it has: render HelmRelease widgets/app (chart app 0.1.0): parse error at (app/templates/bad.yaml:4): "-o"`,
			"Fix the chart, values or postRenderers of HelmRelease widgets/app (apps/hr.yaml:2) so that the render succeeds (`helm template` with the same values, then the post-renderers).", "")
		if d := cmp.Diff(want, got, cmp.AllowUnexported(Finding{}), cmpopts.IgnoreFields(Finding{}, "resolvedAdvice")); d != "" {
			t.Errorf("findings (-want +got):\n%s", d)
		}
	})
}
