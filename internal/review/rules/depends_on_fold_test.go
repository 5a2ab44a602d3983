package rules

import "testing"

// TestDependsOnNotFoundFolds: a dependsOn list that names one missing dependency more than
// once (twice by name, or by name and with its default namespace spelled out) is one
// finding, on the first entry: checkDependencies of helm-controller and kustomize-controller
// stops at the first missing one, and the fix is the same edit.
func TestDependsOnNotFoundFolds(t *testing.T) {
	base := merge(appChart, map[string]string{"platform/ns.yaml": namespaceObj("widgets")})
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{"HelmRelease names it twice", map[string]string{tierFile("platform"): tier("platform", "./platform", true),
			"platform/a.yaml": hrDeps("a", "gone", "gone", "gone widgets")},
			[]want{{Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 12, Msg: []string{"HelmRelease widgets/a dependsOn widgets/gone, which is not a HelmRelease in the cluster"}}}},
		{"Kustomization names it twice", map[string]string{tierFile("platform"): tier("platform", "./platform", true, dependsOn("gone", "gone")...)},
			[]want{{Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/platform",
				File: tierFile("platform"), Line: 14, Msg: []string{"Kustomization flux-system/platform dependsOn flux-system/gone, which is not in the cluster"}}}},
		// Negative: two different missing names stay two findings.
		{"two names", map[string]string{tierFile("platform"): tier("platform", "./platform", true),
			"platform/a.yaml": hrDeps("a", "gone", "lost")},
			[]want{{Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 12, Msg: []string{"dependsOn widgets/gone"}},
				{Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
					File: "platform/a.yaml", Line: 13, Msg: []string{"dependsOn widgets/lost"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, merge(base, tc.files))
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "depends-on-not-found")(c, nil, testEnv()), tc.want)
		})
	}
}
