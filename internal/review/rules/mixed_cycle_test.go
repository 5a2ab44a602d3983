package rules

import "testing"

// TestMixedCycle: Kustomization x waits for HelmRelease a (wait: true or a healthCheck), a
// dependsOn HelmRelease b, and b's Kustomization y dependsOn x: a deadlock through both
// kinds, printed as one path. Not when x does not wait for a: x is Ready once applied.
func TestMixedCycle(t *testing.T) {
	hr := func(name string, extra ...string) string { return widgetHR(name, "app", extra...) }
	files := func(xExtra ...string) map[string]string {
		return merge(appChart, map[string]string{
			tierFile("x"): tier("x", "./x", true, xExtra...), "x/ns.yaml": namespaceObj("widgets"),
			"x/a.yaml":    hr("a", "dependsOn:", "  - name: b"),
			tierFile("y"): tier("y", "./y", true, dependsOn("x")...), "y/b.yaml": hr("b"),
		})
	}
	msg := "dependsOn cycle through Kustomizations and HelmReleases HelmRelease/widgets/a -> HelmRelease/widgets/b -> Kustomization/flux-system/x -> HelmRelease/widgets/a: HelmRelease widgets/a dependsOn widgets/b, HelmRelease widgets/b is applied by flux-system/y, which dependsOn flux-system/x, Kustomization flux-system/x waits for HelmRelease widgets/a; " +
		"on a new cluster none of them ever becomes Ready; on a running cluster they keep running, but once one of them is not Ready (a failed upgrade, apply or health check) each waits for the next, so none becomes Ready again."
	cycle := []want{{Rule: "depends-on-cycle", Severity: Error, Kustomization: "flux-system/x", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
		File: "x/a.yaml", Line: 12, Msg: []string{msg}}}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{"wait: true", files("wait: true"), cycle},
		{"a healthCheck on a", files("healthChecks:", "  - {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: a, namespace: widgets}"), cycle},
		// Negative cases.
		{"x does not wait", files(), nil},
		{"a healthCheck on another HelmRelease", files("healthChecks:", "  - {apiVersion: helm.toolkit.fluxcd.io/v2, kind: HelmRelease, name: other, namespace: widgets}"), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, tc.files)
			checkFindings(t, mixedCycles(c), tc.want)
		})
	}
}
