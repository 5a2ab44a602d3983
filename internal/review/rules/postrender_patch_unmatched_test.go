package rules

import "testing"

// TestPostrenderPatchUnmatched: a postRenderers patch whose target selects nothing of the
// chart's output is a warning on the HelmRelease's postRenderers line; one that selects an
// object, or a second renderer's patch that does, is none.
func TestPostrenderPatchUnmatched(t *testing.T) {
	base := merge(appChart, map[string]string{tierFile("platform"): tier("platform", "./platform", true), "platform/ns.yaml": namespaceObj("widgets")})
	patch := func(name string) []string {
		return []string{"postRenderers:", "  - kustomize:", "      patches:",
			"        - target: {kind: ConfigMap, name: " + name + "}",
			"          patch: |", "            - op: add", "              path: /metadata/annotations", "              value: {patched: \"yes\"}"}
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{"target selects nothing", map[string]string{"platform/a.yaml": widgetHR("a", "app", patch("a-config")...)},
			[]want{{Rule: "postrender-patch-unmatched", Severity: Warning, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 11,
				Msg:  []string{"HelmRelease widgets/a's spec.postRenderers[0].kustomize.patches[0] targets kind=ConfigMap,name=a-config, which selects no object of the rendered chart"},
				Sugg: []string{"Fix the target of spec.postRenderers[0].kustomize.patches[0] in platform/a.yaml"}}}},
		// Negative: the chart's ConfigMap is named after the release.
		{"target selects the ConfigMap", map[string]string{"platform/a.yaml": widgetHR("a", "app", patch("a")...)}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, merge(base, tc.files))
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "postrender-patch-unmatched")(c, nil, testEnv()), tc.want)
		})
	}
}
