package rules

import "testing"

// TestValuesFromNotFound: a valuesFrom ConfigMap or Secret (not optional) that the change
// removes, or that its Kustomization prunes, fails helm-controller's values (ValuesError):
// an error on the valuesFrom entry. A source kept, an optional one, one that neither
// commit renders (made at runtime), and a suspended HelmRelease are no finding.
func TestValuesFromNotFound(t *testing.T) {
	hr := func(extra ...string) string {
		return widgetHR("app", "app", append([]string{"valuesFrom:", "  - kind: ConfigMap", "    name: app-values"}, extra...)...)
	}
	files := func(h string, withCM bool) map[string]string {
		f := merge(appChart, map[string]string{tierFile("platform"): tier("platform", "./platform", true), "platform/ns.yaml": namespaceObj("widgets"),
			"platform/app.yaml": h, tierFile("config"): tier("config", "./config", true), "config/other.yaml": configMap("widgets", "other")})
		if withCM {
			f["config/values.yaml"] = configMap("widgets", "app-values", "data:", "  values.yaml: |", "    replicas: 2")
		}
		return f
	}
	cases := []struct {
		name       string
		base, head map[string]string
		want       []want
	}{
		{"removed", files(hr(), true), files(hr(), false),
			[]want{{Rule: "values-from-not-found", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/app",
				File: "platform/app.yaml", Line: 13, // the entry's name line
				Msg: []string{"HelmRelease widgets/app takes values from ConfigMap widgets/app-values (valuesFrom, not optional), which the base commit has (from flux-system/config) and the change leaves nowhere in cluster dev: " +
					"helm-controller fails to compose the values (ValuesError, 'could not resolve ConfigMap chart values reference 'widgets/app-values' ...'), so it never installs or upgrades the release until the ConfigMap exists."},
				Sugg: []string{"Keep ConfigMap widgets/app-values in the repository (in Kustomization flux-system/platform or one it dependsOn), or remove its entry from spec.valuesFrom of HelmRelease widgets/app (platform/app.yaml:13), or mark it `optional: true` if the chart renders without it."}}}},
		// Negative cases.
		{"kept", files(hr(), true), files(hr(), true), nil},
		{"optional", files(hr(), true), files(hr("    optional: true"), false), nil},
		{"made at runtime at both commits", files(hr(), false), files(hr(), false), nil},
		{"suspended", files(hr(), true), files(hr("suspend: true"), false), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderTree(t, tc.base), renderTree(t, tc.head)
			checkFindings(t, changeRule(t, "values-from-not-found")(base, head, testEnv()), tc.want)
		})
	}
}

// TestValuesFromMovedLater: a valuesFrom ConfigMap moved to a Kustomization that applies
// after the HelmRelease's (it dependsOn the HelmRelease's) is no values-from-not-found (it
// exists) but missing-depends-on on the HelmRelease: on a cold cluster the release waits.
func TestValuesFromMovedLater(t *testing.T) {
	files := merge(appChart, map[string]string{tierFile("platform"): tier("platform", "./platform", true), "platform/ns.yaml": namespaceObj("widgets"),
		"platform/app.yaml":  widgetHR("app", "app", "valuesFrom:", "  - kind: ConfigMap", "    name: app-values"),
		tierFile("config"):   tier("config", "./config", true, dependsOn("platform")...),
		"config/values.yaml": configMap("widgets", "app-values", "data:", "  values.yaml: |", "    replicas: 2")})
	c := renderTree(t, files)
	checkBuilt(t, c)
	checkFindings(t, changeRule(t, "values-from-not-found")(c, c, testEnv()), nil)
	checkFindings(t, stateRule(t, "missing-depends-on")(c, nil, testEnv()), []want{{Rule: "missing-depends-on", Severity: Warning,
		Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/app", File: "platform/app.yaml", Line: 2,
		Msg: []string{"ConfigMap widgets/app-values"}}})
}
