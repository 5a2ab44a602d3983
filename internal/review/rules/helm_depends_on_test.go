package rules

import (
	"strings"
	"testing"
)

// hrDeps is HelmRelease widgets/<name> of the in-repo chart charts/app with the given
// dependsOn entries ("name" or "name namespace"); `- name:` of the first is on line 9.
func hrDeps(name string, deps ...string) string {
	extra := []string{"dependsOn:"}
	for _, d := range deps {
		n, ns, _ := strings.Cut(d, " ")
		extra = append(extra, "  - name: "+n)
		if ns != "" {
			extra = append(extra, "    namespace: "+ns)
		}
	}
	if len(deps) == 0 {
		extra = nil
	}
	return widgetHR(name, "app", extra...)
}

// appChart is an in-repo chart that renders one ConfigMap.
var appChart = map[string]string{
	"charts/app/Chart.yaml":        "apiVersion: v2\nname: app\nversion: 0.1.0\n",
	"charts/app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n",
}

// TestHelmDependsOnNotFound: a HelmRelease dependsOn entry resolves to a HelmRelease of
// the dependent's namespace unless it names one (helm-controller checkDependencies); a
// name that only a Kustomization has never matches, and the message says so.
func TestHelmDependsOnNotFound(t *testing.T) {
	base := merge(appChart, map[string]string{tierFile("platform"): tier("platform", "./platform", true), "platform/ns.yaml": namespaceObj("widgets")})
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{"names a Kustomization", map[string]string{"platform/a.yaml": hrDeps("a", "platform")},
			[]want{{Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 12,
				Msg: []string{`HelmRelease widgets/a dependsOn widgets/platform, which is not a HelmRelease in the cluster, so helm-controller never installs or upgrades it: its Ready condition reads 'unable to get 'widgets/platform' dependency: helmreleases.helm.toolkit.fluxcd.io "platform" not found'.`,
					"flux-system/platform is a Kustomization: a HelmRelease's dependsOn names HelmReleases only, never a Kustomization."},
				Sugg: []string{"Remove `- name: platform` from spec.dependsOn of HelmRelease widgets/a: Kustomization flux-system/platform is the one that applies it"}}}},
		{"names another Kustomization", map[string]string{"platform/a.yaml": hrDeps("a", "infra flux-system"), tierFile("infra"): tier("infra", "./infra", true), "infra/cm.yaml": configMap("flux-system", "x")},
			[]want{{Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 12, Msg: []string{"flux-system/infra is a Kustomization"},
				Sugg: []string{"to order it after Kustomization flux-system/infra, add it to the dependsOn of Kustomization flux-system/platform, which applies the HelmRelease"}}}},
		// A chart not rendered elsewhere does not make the Kustomization's name doubtful.
		{"names a Kustomization, a remote chart not rendered", map[string]string{"platform/a.yaml": hrDeps("a", "platform flux-system"),
			"platform/remote.yaml": obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "widgets", "remote", "spec:", "  chart:", "    spec:", "      chart: podinfo",
				"      sourceRef: {kind: HelmRepository, name: podinfo}", "  interval: 10m"),
			"platform/repo.yaml": obj("source.toolkit.fluxcd.io/v1", "HelmRepository", "widgets", "podinfo", "spec:", "  url: https://stefanprodan.github.io/podinfo")},
			[]want{{Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 12, Msg: []string{"flux-system/platform is a Kustomization"}}}},
		{"names a Kustomization its own already dependsOn", map[string]string{"platform/a.yaml": hrDeps("a", "infra flux-system"),
			tierFile("platform"): tier("platform", "./platform", true, dependsOn("infra")...), tierFile("infra"): tier("infra", "./infra", true), "infra/cm.yaml": configMap("flux-system", "x")},
			[]want{{Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 12, Msg: []string{"flux-system/infra is a Kustomization"},
				Sugg: []string{"Remove `- name: infra` from spec.dependsOn of HelmRelease widgets/a: Kustomization flux-system/platform, which applies it, already dependsOn flux-system/infra."}}}},
		{"names a Kustomization in its namespace", map[string]string{"platform/a.yaml": hrDeps("a", "platform flux-system")},
			[]want{{Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 12, Msg: []string{"dependsOn flux-system/platform, which is not a HelmRelease", "flux-system/platform is a Kustomization"}}}},
		{"HelmRelease in another namespace", map[string]string{"platform/a.yaml": hrDeps("a", "b"),
			"platform/b.yaml": obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "other", "b", "spec:", "  chart:", "    spec:", "      chart: ./charts/app",
				"      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}", "  interval: 10m"),
			"platform/other.yaml": namespaceObj("other")},
			[]want{{Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 12, Msg: []string{"A HelmRelease b exists in namespace other"}, Sugg: []string{"add `namespace: other` under `- name: b`"}}}},
		// A chart not rendered makes a missing HelmRelease uncertain only when it is released
		// into the dependency's namespace, and never the dependent's own chart: it is not
		// installed before the dependency is Ready.
		{"missing, a chart not rendered in its namespace", map[string]string{"platform/a.yaml": hrDeps("a", "gone"), "platform/r.yaml": remoteRelease("widgets", "remote", "")},
			[]want{{Rule: "depends-on-not-found", Severity: Warning, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 12,
				Msg: []string{`HelmRelease widgets/a dependsOn widgets/gone, which is not a HelmRelease in the cluster, so helm-controller never installs or upgrades it: its Ready condition reads 'unable to get 'widgets/gone' dependency: helmreleases.helm.toolkit.fluxcd.io "gone" not found'. ` +
					"Not certain: HelmRelease widgets/remote (chart not rendered) may create it."}}}},
		{"missing, a chart not rendered in another namespace", map[string]string{"platform/a.yaml": hrDeps("a", "gone"), "platform/r.yaml": remoteRelease("other", "remote", "")},
			[]want{{Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 12, Msg: []string{`helmreleases.helm.toolkit.fluxcd.io "gone" not found'.`}}}},
		{"missing, only its own chart not rendered", map[string]string{"platform/a.yaml": strings.Replace(remoteRelease("widgets", "a", ""), "spec:\n", "spec:\n  dependsOn:\n    - name: gone\n", 1)},
			[]want{{Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 8, Msg: []string{`helmreleases.helm.toolkit.fluxcd.io "gone" not found'.`}}}},
		// Negative cases: the dependency exists in the dependent's namespace, or is named
		// with its namespace; a suspended dependent checks nothing.
		{"found", map[string]string{"platform/a.yaml": hrDeps("a", "b"), "platform/b.yaml": hrDeps("b")}, nil},
		{"found with namespace", map[string]string{"platform/a.yaml": hrDeps("a", "b widgets"), "platform/b.yaml": hrDeps("b")}, nil},
		{"suspended", map[string]string{"platform/a.yaml": widgetHR("a", "app", "suspend: true", "dependsOn:", "  - name: gone")}, nil},
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

// TestHelmDependsOnCycle: HelmReleases that depend on each other are never installed;
// the finding lists the edges. A chain is no cycle, and a Kustomization and a HelmRelease
// of the same namespace/name are different nodes.
func TestHelmDependsOnCycle(t *testing.T) {
	base := merge(appChart, map[string]string{tierFile("platform"): tier("platform", "./platform", true), "platform/ns.yaml": namespaceObj("widgets")})
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{"two", map[string]string{"platform/a.yaml": hrDeps("a", "b"), "platform/b.yaml": hrDeps("b", "a")},
			[]want{{Rule: "depends-on-cycle", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 12, // `- name: b`, the cycle's first edge
				Msg: []string{"HelmRelease dependsOn cycle widgets/a -> widgets/b -> widgets/a: helm-controller installs or upgrades a HelmRelease only once its dependencies are Ready, " +
					"so on a new cluster none of these is ever installed; on a running cluster the releases stay installed, but once one of them is not Ready " +
					"(a failed upgrade, a spec change not yet reconciled) the others wait for it and it for them, so none becomes Ready again."},
				Sugg: []string{"widgets/a -> widgets/b (platform/a.yaml:12), widgets/b -> widgets/a (platform/b.yaml:12)"}}}},
		{"self", map[string]string{"platform/a.yaml": hrDeps("a", "a")},
			[]want{{Rule: "depends-on-cycle", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 12, Msg: []string{"cycle widgets/a -> widgets/a"}}}},
		{"chain", map[string]string{"platform/a.yaml": hrDeps("a", "b"), "platform/b.yaml": hrDeps("b", "c"), "platform/c.yaml": hrDeps("c")}, nil},
		{"suspended member", map[string]string{"platform/a.yaml": hrDeps("a", "b"),
			"platform/b.yaml": widgetHR("b", "app", "suspend: true", "dependsOn:", "  - name: a")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, merge(base, tc.files))
			checkBuilt(t, c)
			got := stateRule(t, "depends-on-cycle")(c, nil, testEnv())
			checkFindings(t, got, tc.want)
		})
	}
}
