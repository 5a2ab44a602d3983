package rules

import "testing"

// TestNamespaceForRelease: a targetNamespace nothing creates without createNamespace, and
// a namespace the chart's objects name that nothing creates, fail Helm's install; the
// finding is on targetNamespace:, the values line naming the namespace, or metadata's
// namespace:. Not when
// createNamespace is set, a Kustomization emits the Namespace, or it is a system namespace.
func TestNamespaceForRelease(t *testing.T) {
	elsewhere := map[string]string{
		"charts/elsewhere/Chart.yaml":        "apiVersion: v2\nname: elsewhere\nversion: 0.1.0\n",
		"charts/elsewhere/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: {{ .Values.ns }}\n",
	}
	fixed := map[string]string{
		"charts/fixed/Chart.yaml":        "apiVersion: v2\nname: fixed\nversion: 0.1.0\n",
		"charts/fixed/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: monitoring\n",
	}
	base := merge(appChart, elsewhere, fixed, map[string]string{tierFile("platform"): tier("platform", "./platform", true), "platform/ns.yaml": namespaceObj("widgets")})
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{"targetNamespace nothing creates", map[string]string{"platform/a.yaml": widgetHR("a", "app", "targetNamespace: team")},
			[]want{{Rule: "namespace-for-release", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 11,
				Msg:  []string{`HelmRelease widgets/a installs into targetNamespace team, which nothing in the cluster creates and install.createNamespace is not set: Helm's install fails with 'namespaces "team" not found'.`},
				Sugg: []string{"Set `install: {createNamespace: true}` on HelmRelease widgets/a (platform/a.yaml:2)"}}}},
		{"chart object in another namespace, flow values", map[string]string{"platform/a.yaml": widgetHR("a", "elsewhere", "targetNamespace: team", "install: {createNamespace: true}", "values: {ns: monitoring}")},
			[]want{{Rule: "namespace-for-release", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 13,
				Msg: []string{"HelmRelease widgets/a's chart renders objects in namespace monitoring, which nothing in the cluster creates (install.createNamespace creates only the release namespace team): Helm's install fails with 'namespaces \"monitoring\" not found'."}}}},
		{"chart object in another namespace, block values", map[string]string{"platform/a.yaml": widgetHR("a", "elsewhere", "targetNamespace: team", "install: {createNamespace: true}",
			"values:", "  replicas: 1", "  ns: 'monitoring' # the operator's")},
			[]want{{Rule: "namespace-for-release", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 15}}},
		{"chart default namespace, targetNamespace", map[string]string{"platform/a.yaml": widgetHR("a", "fixed", "targetNamespace: team", "install: {createNamespace: true}")},
			[]want{{Rule: "namespace-for-release", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 11}}},
		{"chart default namespace, release in the HelmRelease's namespace", map[string]string{"platform/a.yaml": widgetHR("a", "fixed")},
			[]want{{Rule: "namespace-for-release", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 5}}},
		// Negative cases.
		{"createNamespace", map[string]string{"platform/a.yaml": widgetHR("a", "app", "targetNamespace: team", "install: {createNamespace: true}")}, nil},
		{"a Kustomization emits it", map[string]string{"platform/a.yaml": widgetHR("a", "app", "targetNamespace: team"), "platform/team.yaml": namespaceObj("team")}, nil},
		{"system namespace", map[string]string{"platform/a.yaml": widgetHR("a", "elsewhere", "targetNamespace: kube-system", "values: {ns: default}")}, nil},
		{"no targetNamespace", map[string]string{"platform/a.yaml": widgetHR("a", "app")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, merge(base, tc.files))
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "namespace-for-release")(c, nil, testEnv()), tc.want)
		})
	}
}
