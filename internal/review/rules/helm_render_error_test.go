package rules

import (
	"fmt"
	"strings"
	"testing"

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
