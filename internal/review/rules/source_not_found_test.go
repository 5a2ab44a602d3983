package rules

import "testing"

// TestSourceNotFound: a Kustomization sourceRef, a HelmRelease chart.spec.sourceRef or a
// HelmRelease chartRef naming a source nothing in the cluster creates stalls the reconcile
// ("Source ... not found"); the finding is on the sourceRef line and lists the sources of
// that kind that exist. A source of the graph, the root's, the HelmChart another
// HelmRelease's spec.chart makes, and a suspended referrer are no finding.
func TestSourceNotFound(t *testing.T) {
	repo := obj("source.toolkit.fluxcd.io/v1", "HelmRepository", "widgets", "podinfo", "spec:", "  url: https://stefanprodan.github.io/podinfo")
	base := merge(appChart, map[string]string{tierFile("platform"): tier("platform", "./platform", true),
		"platform/ns.yaml": namespaceObj("widgets"), "platform/repo.yaml": repo})
	remoteHR := func(name, repoName string) string {
		return obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "widgets", name, "spec:", "  chart:", "    spec:", "      chart: podinfo",
			"      sourceRef: {kind: HelmRepository, name: "+repoName+"}", "  interval: 10m")
	}
	chartRefHR := func(name, kind, ref string) string {
		return obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "widgets", name, "spec:", "  chartRef:", "    kind: "+kind, "    name: "+ref, "  interval: 10m")
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{"HelmRelease chart sourceRef", map[string]string{"platform/web.yaml": remoteHR("web", "podinf")},
			[]want{{Rule: "source-not-found", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/web",
				File: "platform/web.yaml", Line: 10,
				Msg: []string{"HelmRelease widgets/web's spec.chart.spec.sourceRef names HelmRepository widgets/podinf, which no Kustomization or chart of cluster dev creates (the namespace defaults to the referrer's own): " +
					"source-controller cannot build HelmChart widgets/widgets-web from it, so helm-controller never installs or upgrades the release and the HelmRelease stays not Ready. Existing HelmRepository sources: widgets/podinfo."},
				Sugg: []string{"Point spec.chart.spec.sourceRef of HelmRelease widgets/web (platform/web.yaml:10) at an existing HelmRepository, or add HelmRepository widgets/podinf to the manifests of Kustomization flux-system/platform or of one it dependsOn."}}}},
		{"HelmRelease chartRef", map[string]string{"platform/web.yaml": chartRefHR("web", "OCIRepository", "web")},
			[]want{{Rule: "source-not-found", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/web",
				File: "platform/web.yaml", Line: 7,
				Msg: []string{"HelmRelease widgets/web's spec.chartRef names OCIRepository widgets/web, which no Kustomization or chart of cluster dev creates",
					"helm-controller fails every reconcile with 'could not get Source object'"}}}},
		{"Kustomization sourceRef", map[string]string{tierFile("apps"): `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  interval: 10m0s
  path: ./apps
  prune: true
  sourceRef:
    kind: GitRepository
    name: apps-repo
`},
			[]want{{Rule: "source-not-found", Severity: Error, Kustomization: "flux-system/apps", File: tierFile("apps"), Line: 10,
				Msg: []string{"Kustomization flux-system/apps's spec.sourceRef names GitRepository flux-system/apps-repo, which no Kustomization or chart of cluster dev creates",
					"kustomize-controller marks it not Ready with 'Source 'GitRepository/flux-system/apps-repo' not found' and retries", "Existing GitRepository sources: flux-system/flux-system."},
				Sugg: []string{"Point spec.sourceRef of Kustomization flux-system/apps (clusters/dev/apps.yaml:10) at an existing GitRepository, or add GitRepository flux-system/apps-repo to the manifests of Kustomization flux-system/flux-system or of one it dependsOn."}}}},
		// A chart not rendered may create the source: a notice, which leaves the subject's
		// own unrendered chart out of the reasons.
		{"unknown part of the cluster", map[string]string{"platform/web.yaml": chartRefHR("web", "OCIRepository", "web"), "platform/other.yaml": remoteHR("other", "podinfo")},
			[]want{{Rule: "source-not-found", Severity: Notice, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/web",
				File: "platform/web.yaml", Line: 7,
				Msg: []string{"HelmRelease widgets/web's spec.chartRef names OCIRepository widgets/web, which no reviewed Kustomization or chart of cluster dev creates; not checked, since HelmRelease widgets/other (chart not rendered) may create it."}}}},
		// A chart renders into its release namespace: one released into namespace other
		// cannot create a source of namespace widgets, so the source is certainly missing.
		{"part of the cluster not rendered in another namespace", map[string]string{"platform/web.yaml": chartRefHR("web", "OCIRepository", "web"),
			"platform/other.yaml": remoteRelease("widgets", "remote", "other")},
			[]want{{Rule: "source-not-found", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/web",
				File: "platform/web.yaml", Line: 7,
				Msg: []string{"HelmRelease widgets/web's spec.chartRef names OCIRepository widgets/web, which no Kustomization or chart of cluster dev creates (the namespace defaults to the referrer's own): " +
					"helm-controller fails every reconcile with 'could not get Source object'"}}}},
		// Negative cases.
		{"source exists", map[string]string{"platform/web.yaml": remoteHR("web", "podinfo")}, nil},
		{"in-repo chart of the root source", map[string]string{"platform/a.yaml": hrDeps("a")}, nil},
		{"chartRef to the HelmChart another HelmRelease makes", map[string]string{"platform/web.yaml": remoteHR("web", "podinfo"),
			"platform/copy.yaml": chartRefHR("copy", "HelmChart", "widgets-web")}, nil},
		{"suspended", map[string]string{"platform/web.yaml": obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "widgets", "web", "spec:", "  suspend: true", "  chartRef:", "    kind: OCIRepository", "    name: gone", "  interval: 10m")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, merge(base, tc.files))
			checkFindings(t, stateRule(t, "source-not-found")(c, nil, testEnv()), tc.want)
		})
	}
}
