package rules

import "testing"

// operatorCharts: charts/operator installs the Widget CRD (crds/), charts/consumer renders
// a Widget.
var operatorCharts = map[string]string{
	"charts/operator/Chart.yaml":            "apiVersion: v2\nname: operator\nversion: 0.1.0\n",
	"charts/operator/crds/widgets.yaml":     crd("example.com", "Widget", "widgets", "Namespaced"),
	"charts/consumer/Chart.yaml":            "apiVersion: v2\nname: consumer\nversion: 0.1.0\n",
	"charts/consumer/templates/widget.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {{ .Release.Name }}\n",
	"charts/app/Chart.yaml":                 "apiVersion: v2\nname: app\nversion: 0.1.0\n",
	"charts/app/templates/cm.yaml":          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n",
}

// TestHelmReleaseNeedsCRD: a HelmRelease whose chart renders a kind another HelmRelease's
// chart installs the CRD of needs a HelmRelease dependsOn path to it, or a Kustomization
// order through a provider tier that waits.
func TestHelmReleaseNeedsCRD(t *testing.T) {
	operator := widgetHR("operator", "operator")
	consumer := func(deps ...string) string {
		if len(deps) == 0 {
			return widgetHR("consumer", "consumer")
		}
		extra := []string{"dependsOn:"}
		for _, d := range deps {
			extra = append(extra, "  - name: "+d)
		}
		return widgetHR("consumer", "consumer", extra...)
	}
	platform := map[string]string{tierFile("platform"): tier("platform", "./platform", true), "platform/ns.yaml": namespaceObj("widgets"),
		"platform/operator.yaml": operator}
	finding := want{Rule: "missing-depends-on", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/consumer",
		File: "platform/consumer.yaml", Line: 2,
		Msg:  []string{"HelmRelease widgets/consumer's chart renders Widget.example.com, whose CRD HelmRelease widgets/operator (chart operator) installs, but widgets/consumer has no dependsOn path to widgets/operator: helm-controller reconciles them concurrently, so on a cold cluster the install of widgets/consumer fails on the unknown kind until widgets/operator has installed."},
		Sugg: []string{"Set in HelmRelease widgets/consumer (platform/consumer.yaml:6):\n  dependsOn:\n    - name: operator"}}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{"same Kustomization, no dependsOn", map[string]string{"platform/consumer.yaml": consumer()}, []want{finding}},
		{"other Kustomization that does not wait", map[string]string{tierFile("apps"): tier("apps", "./apps", true, dependsOn("platform")...),
			"apps/consumer.yaml": consumer()},
			[]want{{Rule: "missing-depends-on", Severity: Error, Kustomization: "flux-system/apps", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/consumer",
				File: "apps/consumer.yaml", Line: 2, Msg: []string{"has no dependsOn path to widgets/operator"}}}},
		// Negative cases: a HelmRelease dependsOn edge, direct or through another, or a
		// tier after a provider tier that waits.
		{"dependsOn the provider", map[string]string{"platform/consumer.yaml": consumer("operator")}, nil},
		{"dependsOn through another", map[string]string{"platform/consumer.yaml": consumer("mid"),
			"platform/mid.yaml": widgetHR("mid", "app", "dependsOn:", "  - name: operator")}, nil},
		{"tier after a provider that waits", map[string]string{tierFile("platform"): tier("platform", "./platform", true, "wait: true"),
			tierFile("apps"): tier("apps", "./apps", true, dependsOn("platform")...), "apps/consumer.yaml": consumer()}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, merge(operatorCharts, platform, tc.files))
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "missing-depends-on")(c, nil, testEnv()), tc.want)
		})
	}
}

// TestChartNamespaceNeed: a Namespace that only a HelmRelease's install.createNamespace
// creates exists at runtime: an object of another tier in it needs a dependsOn path to
// the HelmRelease's tier (missing-depends-on), and that tier's wait (missing-wait).
func TestChartNamespaceNeed(t *testing.T) {
	hr := widgetHR("app", "app", "targetNamespace: team", "install:", "  createNamespace: true")
	platform := func(extra ...string) map[string]string {
		return map[string]string{tierFile("platform"): tier("platform", "./platform", true, extra...), "platform/ns.yaml": namespaceObj("widgets"),
			"platform/app.yaml": hr}
	}
	cm := configMap("team", "settings")
	cases := []struct {
		name  string
		files map[string]string
		rule  string
		want  []want
	}{
		{"no dependsOn", merge(platform(), map[string]string{tierFile("apps"): tier("apps", "./apps", true), "apps/cm.yaml": cm}), "missing-depends-on",
			[]want{{Rule: "missing-depends-on", Severity: Error, Kustomization: "flux-system/apps", Object: "ConfigMap/team/settings", File: "apps/cm.yaml", Line: 2,
				Msg: []string{"needs Namespace team (created at runtime by the HelmRelease widgets/app (chart app)) from flux-system/platform"}}}},
		{"dependsOn without wait", merge(platform(), map[string]string{tierFile("apps"): tier("apps", "./apps", true, dependsOn("platform")...), "apps/cm.yaml": cm}), "missing-wait",
			[]want{{Rule: "missing-wait", Severity: Warning, Kustomization: "flux-system/apps", Object: "ConfigMap/team/settings", File: "apps/cm.yaml", Line: 2,
				Msg: []string{"flux-system/platform has neither `wait: true` nor a healthCheck on its HelmRelease widgets/app (chart app)"}}}},
		// Negative cases: the provider waits; a Kustomization also emits the Namespace.
		{"dependsOn with wait", merge(platform("wait: true"), map[string]string{tierFile("apps"): tier("apps", "./apps", true, dependsOn("platform")...), "apps/cm.yaml": cm}), "missing-wait", nil},
		{"dependsOn with wait, no missing edge", merge(platform("wait: true"), map[string]string{tierFile("apps"): tier("apps", "./apps", true, dependsOn("platform")...), "apps/cm.yaml": cm}), "missing-depends-on", nil},
		{"Namespace in the build", merge(platform(), map[string]string{"platform/team.yaml": namespaceObj("team"),
			tierFile("apps"): tier("apps", "./apps", true, dependsOn("platform")...), "apps/cm.yaml": cm}), "missing-wait", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, merge(appChart, tc.files))
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, tc.rule)(c, nil, testEnv()), tc.want)
		})
	}
}
