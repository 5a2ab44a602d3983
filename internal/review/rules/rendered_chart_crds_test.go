package rules

import "testing"

// TestRenderedChartCRDs: when a HelmRelease's chart renders (an in-repo chart here), the
// CRDs of its crds/ come from the render, not the catalog: they are created at runtime by
// that HelmRelease, so a custom resource beside it deadlocks, and one in another tier needs
// an edge to the HelmRelease's tier. The chart's own custom resource is applied by
// helm-controller after its crds/, so it is no finding.
func TestRenderedChartCRDs(t *testing.T) {
	hr := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "widgets", "widget-operator",
		"spec:", "  chart:", "    spec:", "      chart: ./charts/widget-operator",
		"      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}", "  interval: 10m")
	chart := map[string]string{
		"charts/widget-operator/Chart.yaml":             "apiVersion: v2\nname: widget-operator\nversion: 0.1.0\n",
		"charts/widget-operator/crds/widgets.yaml":      crd("example.com", "Widget", "widgets", "Namespaced"),
		"charts/widget-operator/templates/default.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: default\n",
	}
	widget := obj("example.com/v1", "Widget", "default", "w", "spec: {}")
	with := func(m map[string]string) map[string]string {
		for k, v := range chart {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name  string
		files map[string]string
		rule  string
		want  []want
	}{
		{
			name:  "custom resource beside the HelmRelease",
			files: with(map[string]string{tierFile("ops"): tier("ops", "./ops", true), "ops/hr.yaml": hr, "ops/w.yaml": widget}),
			rule:  "runtime-crd-same-pass",
			want: []want{{Rule: "runtime-crd-same-pass", Severity: Error, Kustomization: "flux-system/ops",
				Object: "Widget.example.com/default/w", File: "ops/w.yaml", Line: 2,
				Msg: []string{"created at runtime once HelmRelease.helm.toolkit.fluxcd.io/widgets/widget-operator reconciles"}}},
		},
		{
			name: "custom resource in a tier without an edge",
			files: with(map[string]string{tierFile("ops"): tier("ops", "./ops", true, "wait: true"), "ops/hr.yaml": hr,
				tierFile("apps"): tier("apps", "./apps", true), "apps/w.yaml": widget}),
			rule: "missing-depends-on",
			want: []want{{Rule: "missing-depends-on", Severity: Error, Kustomization: "flux-system/apps",
				Object: "Widget.example.com/default/w", File: "apps/w.yaml", Line: 2,
				Msg: []string{"needs the CRD of Widget.example.com (created at runtime by the HelmRelease widgets/widget-operator (chart widget-operator)) from flux-system/ops"}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, tc.rule)(c, nil, testEnv()), tc.want)
		})
	}
}
