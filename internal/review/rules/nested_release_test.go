package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestNestedHelmReleaseNotReviewed: a HelmRelease that a chart renders is reconciled by
// helm-controller once applied, but tiergate does not render it: it is listed as not
// rendered (so not reviewed, and an unknown part for the rules), never silently skipped. A
// suspended one is a note only.
func TestNestedHelmReleaseNotReviewed(t *testing.T) {
	inner := "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: inner\n  namespace: widgets\nspec:\n  chart:\n    spec:\n      chart: ./charts/app\n      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}\n"
	files := func(tpl string) map[string]string {
		return merge(appChart, map[string]string{tierFile("platform"): tier("platform", "./platform", true), "platform/ns.yaml": namespaceObj("widgets"),
			"charts/parent/Chart.yaml": "apiVersion: v2\nname: parent\nversion: 0.1.0\n", "charts/parent/templates/hr.yaml": tpl,
			"platform/parent.yaml": widgetHR("parent", "parent")})
	}
	id := graph.ObjectID{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease", Namespace: "widgets", Name: "inner"}
	cases := []struct {
		name string
		tpl  string
		want []graph.ReleaseSkip
	}{
		{"reconciled", inner, []graph.ReleaseSkip{{HelmRelease: id, File: "platform/parent.yaml", Line: 2,
			Reason: "HelmRelease widgets/inner (rendered by chart template parent/templates/hr.yaml of HelmRelease widgets/parent, platform/parent.yaml:2) not rendered: " +
				"tiergate renders the HelmReleases Kustomizations apply, not those a chart renders, and helm-controller installs this one once its parent release applies it"}}},
		{"suspended", inner + "  suspend: true\n", []graph.ReleaseSkip{{HelmRelease: id, File: "platform/parent.yaml", Line: 2, Suspended: true,
			Reason: "HelmRelease widgets/inner (rendered by chart template parent/templates/hr.yaml of HelmRelease widgets/parent) is suspended: helm-controller does not reconcile it"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, files(tc.tpl))
			checkBuilt(t, c)
			ks := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "platform"}]
			if diff := cmp.Diff(tc.want, ks.HelmReleaseSkipped); diff != "" {
				t.Errorf("HelmReleaseSkipped (-want +got):\n%s", diff)
			}
			if got, want := len(unknownProducersIn(c, "widgets")) > 0, !tc.want[0].Suspended; got != want {
				t.Errorf("unknownProducersIn(widgets) not empty = %t, want %t", got, want)
			}
		})
	}
}
