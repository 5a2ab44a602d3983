package rules

import "testing"

// TestReleaseCollision: HelmReleases with the same release name in the same storage
// namespace collide (helm-controller#284), whether by releaseName or by the default
// [targetNamespace-]name; different storage namespaces, or the same name in different
// namespaces, do not.
func TestReleaseCollision(t *testing.T) {
	base := merge(appChart, map[string]string{tierFile("platform"): tier("platform", "./platform", true),
		"platform/ns.yaml": namespaceObj("widgets") + "---\n" + namespaceObj("other")})
	other := func(name string, extra ...string) string {
		rest := []string{"spec:", "  chart:", "    spec:", "      chart: ./charts/app",
			"      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}"}
		for _, l := range extra {
			rest = append(rest, "  "+l)
		}
		return obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "other", name, append(rest, "  interval: 10m")...)
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{"same releaseName", map[string]string{"platform/a.yaml": widgetHR("a", "app", "releaseName: shared"), "platform/b.yaml": widgetHR("b", "app", "releaseName: shared")},
			[]want{{Rule: "release-collision", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/b",
				File: "platform/b.yaml", Line: 11,
				Msg:  []string{`HelmReleases widgets/b and widgets/a (platform/a.yaml:2) both manage Helm release "shared" in storage namespace widgets: each takes the other's release as unmanaged and upgrades it`},
				Sugg: []string{"Give HelmRelease widgets/b (platform/b.yaml:2) a release of its own"}}}},
		{"releaseName equals another's default name", map[string]string{"platform/a.yaml": widgetHR("a", "app"),
			"platform/b.yaml": other("b", "releaseName: a", "storageNamespace: widgets")},
			[]want{{Rule: "release-collision", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/other/b",
				File: "platform/b.yaml", Line: 11, Msg: []string{`Helm release "a" in storage namespace widgets`}}}},
		{"same releaseName, different targetNamespace", map[string]string{"platform/a.yaml": widgetHR("a", "app", "releaseName: x", "targetNamespace: other"),
			"platform/b.yaml": widgetHR("b", "app", "releaseName: x")},
			[]want{{Rule: "release-collision", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/b",
				File: "platform/b.yaml", Line: 11, Msg: []string{`Helm release "x" in storage namespace widgets`}}}},
		// Negative cases.
		{"same name, other namespace", map[string]string{"platform/a.yaml": widgetHR("a", "app"), "platform/b.yaml": other("a")}, nil},
		{"same releaseName, other storageNamespace", map[string]string{"platform/a.yaml": widgetHR("a", "app", "releaseName: x"),
			"platform/b.yaml": widgetHR("b", "app", "releaseName: x", "storageNamespace: other")}, nil},
		{"targetNamespace prefixes the default name", map[string]string{"platform/a.yaml": widgetHR("a", "app", "targetNamespace: other"),
			"platform/b.yaml": widgetHR("b", "app", "releaseName: a")}, nil},
		{"releaseName equals a prefixed default name", map[string]string{"platform/a.yaml": widgetHR("a", "app", "targetNamespace: other"),
			"platform/b.yaml": widgetHR("b", "app", "releaseName: other-a")},
			[]want{{Rule: "release-collision", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/b",
				File: "platform/b.yaml", Line: 11, Msg: []string{`Helm release "other-a" in storage namespace widgets`}}}},
	}
	t.Run("the HelmRelease the change adds is reported", func(t *testing.T) {
		t.Parallel()
		before := renderTree(t, merge(base, map[string]string{"platform/z.yaml": widgetHR("z", "app", "releaseName: shared")}))
		c := renderTree(t, merge(base, map[string]string{"platform/a.yaml": widgetHR("a", "app", "releaseName: shared"), "platform/z.yaml": widgetHR("z", "app", "releaseName: shared")}))
		checkFindings(t, stateRule(t, "release-collision")(c, before, testEnv()), []want{{Rule: "release-collision", Severity: Error, Kustomization: "flux-system/platform",
			Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a", File: "platform/a.yaml", Line: 11, Msg: []string{"HelmReleases widgets/a and widgets/z (platform/z.yaml:2)"}}})
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, merge(base, tc.files))
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "release-collision")(c, nil, testEnv()), tc.want)
		})
	}
}

// TestReleaseCollisionFoldsDuplicateOwner: what the charts of two colliding HelmReleases
// both render is counted in the one release-collision, not reported again as
// duplicate-owner; a third owner of it is, and so are two HelmReleases that do not collide.
func TestReleaseCollisionFoldsDuplicateOwner(t *testing.T) {
	fixed := map[string]string{
		"charts/fixed/Chart.yaml":        "apiVersion: v2\nname: fixed\nversion: 0.1.0\n",
		"charts/fixed/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fixed\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n",
	}
	base := merge(appChart, fixed, map[string]string{tierFile("platform"): tier("platform", "./platform", true), "platform/ns.yaml": namespaceObj("widgets")})
	collision := want{Rule: "release-collision", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/b",
		File: "platform/b.yaml", Line: 11,
		Msg: []string{"Both charts render 2 objects (ConfigMap/widgets/fixed and 1 more), which the two releases take from each other on every upgrade."}}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{"two colliding charts", map[string]string{"platform/a.yaml": widgetHR("a", "fixed", "releaseName: shared"), "platform/b.yaml": widgetHR("b", "fixed", "releaseName: shared")},
			[]want{collision}},
		{"a third owner stays", map[string]string{"platform/a.yaml": widgetHR("a", "fixed", "releaseName: shared"), "platform/b.yaml": widgetHR("b", "fixed", "releaseName: shared"),
			"platform/cm.yaml": configMap("widgets", "fixed")},
			[]want{collision,
				{Rule: "duplicate-owner", Severity: Error, Kustomization: "flux-system/platform", Object: "ConfigMap/widgets/fixed", File: "platform/a.yaml", Line: 2},
				{Rule: "duplicate-owner", Severity: Error, Kustomization: "flux-system/platform", Object: "ConfigMap/widgets/fixed", File: "platform/b.yaml", Line: 2}}},
		// Negative case: different releases, one object both charts render.
		{"no collision", map[string]string{"platform/a.yaml": widgetHR("a", "fixed"), "platform/b.yaml": widgetHR("b", "fixed")},
			[]want{{Rule: "duplicate-owner", Severity: Error, Kustomization: "flux-system/platform", Object: "ConfigMap/widgets/fixed", File: "platform/b.yaml", Line: 2,
				Msg: []string{"the two Helm releases take it from each other on every upgrade"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, merge(base, tc.files))
			checkBuilt(t, c)
			got := append(stateRule(t, "release-collision")(c, nil, testEnv()), stateRule(t, "duplicate-owner")(c, nil, testEnv())...)
			checkFindings(t, got, tc.want)
		})
	}
}
