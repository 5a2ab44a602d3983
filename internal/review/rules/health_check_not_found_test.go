package rules

import "testing"

// TestHealthCheckNotFound covers healthChecks entries read as kustomize-controller's
// checkHealth reads them: found in any Kustomization of the cluster, apiVersion matched by
// group (empty: apps/v1), namespace as written, the entry naming the Kustomization itself
// skipped, ignored under wait: true, and unknown (a notice) when a chart is not rendered.
func TestHealthCheckNotFound(t *testing.T) {
	// apps health-checks one object; its entry's name line is line 16 of clusters/dev/apps.yaml.
	apps := func(entry []string, extra ...string) map[string]string {
		spec := append([]string{"healthChecks:"}, entry...)
		return map[string]string{
			tierFile("apps"):   tier("apps", "./apps", true, append(spec, extra...)...),
			"apps/config.yaml": configMap("podinfo", "settings"),
		}
	}
	entry := func(apiVersion, kind, name, namespace string) []string {
		out := []string{"  - apiVersion: " + apiVersion, "    kind: " + kind, "    name: " + name}
		if apiVersion == "" {
			out = []string{"  - kind: " + kind, "    name: " + name}
		}
		if namespace != "" {
			out = append(out, "    namespace: "+namespace)
		}
		return out
	}
	infra := map[string]string{
		tierFile("infra"):   tier("infra", "./infra", true),
		"infra/deploy.yaml": deployment("podinfo", "podinfo"),
	}
	notFound := func(line int, msg, sugg []string) want {
		return want{Rule: "health-check-not-found", Severity: Error, Kustomization: "flux-system/apps",
			File: "clusters/dev/apps.yaml", Line: line, Msg: msg, Sugg: sugg}
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{name: "object of another Kustomization", files: merge(infra, apps(entry("apps/v1", "Deployment", "podinfo", "podinfo")))},
		{name: "empty apiVersion is apps/v1", files: merge(infra, apps(entry("", "Deployment", "podinfo", "podinfo")))},
		{name: "another version of the group", files: merge(infra, apps(entry("apps/v1beta2", "Deployment", "podinfo", "podinfo")))},
		{name: "a Kustomization of the graph", files: merge(infra, apps(entry("kustomize.toolkit.fluxcd.io/v1", "Kustomization", "infra", "flux-system")))},
		{name: "the root's source", files: apps(entry("source.toolkit.fluxcd.io/v1", "GitRepository", "flux-system", "flux-system"))},
		{name: "a Flux controller", files: apps(entry("apps/v1", "Deployment", "kustomize-controller", "flux-system"))},
		{name: "itself", files: apps(entry("kustomize.toolkit.fluxcd.io/v1", "Kustomization", "apps", "flux-system"))},
		{name: "wait true ignores healthChecks", files: merge(infra, apps(entry("apps/v1", "Deployment", "gone", "podinfo"), "wait: true"))},
		{
			name:  "renamed object",
			files: merge(infra, apps(entry("apps/v1", "Deployment", "podinfo-old", "podinfo"))),
			want: []want{notFound(16,
				[]string{"Kustomization flux-system/apps health-checks Deployment.apps/podinfo/podinfo-old, which no Kustomization or chart of cluster dev creates",
					"'NotFound' at the timeout, so flux-system/apps never becomes Ready."},
				[]string{"Fix the healthChecks entry at clusters/dev/apps.yaml:16 to name an object the cluster creates, or remove it."})},
		},
		{
			name:  "object in the entry's namespace",
			files: merge(infra, apps(entry("apps/v1", "Deployment", "podinfo", "flux-system")), map[string]string{"infra/deploy.yaml": deployment("flux-system", "podinfo")}),
		},
		{
			name:  "swapped",
			files: merge(infra, apps(entry("apps/v1", "Deployment", "web", "podinfo")), map[string]string{"infra/deploy.yaml": deployment("web", "podinfo")}),
			want: []want{notFound(16, []string{"Deployment.apps/web/podinfo exists: the entry has name and namespace swapped."},
				[]string{"Write `name: podinfo` and `namespace: web`."})},
		},
		{
			name:  "no namespace",
			files: merge(infra, apps(entry("apps/v1", "Deployment", "podinfo", ""))),
			want: []want{notFound(16, []string{"The entry has no namespace, and Flux does not default it", "while Deployment.apps/podinfo/podinfo exists"},
				[]string{"Add `namespace: podinfo` to the entry."})},
		},
		{
			name:  "other group",
			files: merge(infra, apps(entry("extensions/v1beta1", "Deployment", "podinfo", "podinfo"))),
			want: []want{notFound(16, []string{`Flux matches the group of the entry's apiVersion, and "extensions" is not "apps"`},
				[]string{`Use the apiVersion of group "apps".`})},
		},
		{
			name: "dependents wait forever",
			files: merge(infra, apps(entry("apps/v1", "Deployment", "nope", "podinfo")), map[string]string{
				tierFile("web"): tier("web", "./web", true, dependsOn("apps")...), "web/cm.yaml": configMap("podinfo", "web"),
			}),
			want: []want{notFound(16, []string{"never becomes Ready and flux-system/web, which dependsOn it, waits forever."}, nil)},
		},
		{
			name: "a chart not rendered: unknown",
			files: merge(infra, apps(entry("apps/v1", "Deployment", "nope", "podinfo")), map[string]string{
				"infra/hr.yaml": obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "podinfo", "podinfo",
					"spec:", "  chart:", "    spec:", "      chart: podinfo", "      sourceRef: {kind: HelmRepository, name: podinfo}", "  interval: 10m"),
			}),
			want: []want{{Rule: "health-check-not-found", Severity: Notice, Kustomization: "flux-system/apps", File: "clusters/dev/apps.yaml", Line: 16,
				Msg: []string{"which no reviewed Kustomization or chart of cluster dev creates; not checked, since HelmRelease podinfo/podinfo (chart not rendered) may create it."}}},
		},
		{
			// A chart whose release namespace is another one does not make the entry unknown.
			name: "a chart not rendered in another namespace: still an error",
			files: merge(infra, apps(entry("apps/v1", "Deployment", "nope", "podinfo")), map[string]string{
				"infra/hr.yaml": obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "other", "remote",
					"spec:", "  chart:", "    spec:", "      chart: podinfo", "      sourceRef: {kind: HelmRepository, name: podinfo}", "  interval: 10m"),
			}),
			want: []want{notFound(16, []string{"which no Kustomization or chart of cluster dev creates"}, nil)},
		},
		{
			name: "a chart not rendered whose targetNamespace is the entry's: unknown",
			files: merge(infra, apps(entry("apps/v1", "Deployment", "nope", "podinfo")), map[string]string{
				"infra/hr.yaml": obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "other", "remote",
					"spec:", "  targetNamespace: podinfo", "  chart:", "    spec:", "      chart: podinfo", "      sourceRef: {kind: HelmRepository, name: podinfo}", "  interval: 10m"),
			}),
			want: []want{{Rule: "health-check-not-found", Severity: Notice, Kustomization: "flux-system/apps", File: "clusters/dev/apps.yaml", Line: 16,
				Msg: []string{"since HelmRelease other/remote (chart not rendered) may create it."}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "health-check-not-found")(c, nil, testEnv()), tc.want)
		})
	}
}
