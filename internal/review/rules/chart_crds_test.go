package rules

import "testing"

// TestChartInstalledCRDs covers CRDs that a HelmRelease installs (the chart catalog):
// a custom resource beside the HelmRelease deadlocks a cold cluster; in another tier it
// needs an edge to the HelmRelease's tier, and that tier must wait.
func TestChartInstalledCRDs(t *testing.T) {
	certManager := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "cert-manager", "cert-manager",
		"spec:", "  chart:", "    spec:", "      chart: cert-manager", "      sourceRef: {kind: HelmRepository, name: jetstack}")
	viaOCI := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "cert-manager", "cert-manager",
		"spec:", "  chartRef: {kind: OCIRepository, name: cert-manager}") + "---\n" +
		obj("source.toolkit.fluxcd.io/v1", "OCIRepository", "cert-manager", "cert-manager",
			"spec:", "  url: oci://quay.io/jetstack/charts/cert-manager", "  ref: {tag: v1.18.0}")
	issuer := obj("cert-manager.io/v1", "ClusterIssuer", "", "letsencrypt", "spec: {selfSigned: {}}")
	cases := []struct {
		name  string
		files map[string]string
		rule  string
		want  []want
	}{
		{
			name: "issuer beside the chart: same pass",
			files: map[string]string{
				tierFile("certs"): tier("certs", "./certs", true),
				"certs/hr.yaml":   certManager,
				"certs/ci.yaml":   issuer,
			},
			rule: "runtime-crd-same-pass",
			want: []want{{Rule: "runtime-crd-same-pass", Severity: Error, Kustomization: "flux-system/certs",
				Object: "ClusterIssuer.cert-manager.io/letsencrypt", File: "certs/ci.yaml", Line: 2,
				Msg: []string{"created at runtime once HelmRelease.helm.toolkit.fluxcd.io/cert-manager/cert-manager reconciles"}}},
		},
		{
			name: "chartRef to an OCIRepository names the chart too",
			files: map[string]string{
				tierFile("certs"): tier("certs", "./certs", true),
				"certs/hr.yaml":   viaOCI,
				"certs/ci.yaml":   issuer,
			},
			rule: "runtime-crd-same-pass",
			want: []want{{Rule: "runtime-crd-same-pass", Severity: Error, Kustomization: "flux-system/certs",
				Object: "ClusterIssuer.cert-manager.io/letsencrypt", File: "certs/ci.yaml", Line: 2}},
		},
		{
			name: "issuer in a tier without an edge",
			files: map[string]string{
				tierFile("controllers"): tier("controllers", "./controllers", true, "wait: true"),
				"controllers/hr.yaml":   certManager,
				tierFile("configs"):     tier("configs", "./configs", true),
				"configs/ci.yaml":       issuer,
			},
			rule: "missing-depends-on",
			want: []want{{Rule: "missing-depends-on", Severity: Error, Kustomization: "flux-system/configs",
				Object: "ClusterIssuer.cert-manager.io/letsencrypt", File: "configs/ci.yaml", Line: 2,
				Msg: []string{"needs the CRD of ClusterIssuer.cert-manager.io (created at runtime by the HelmRelease of chart cert-manager) from flux-system/controllers"}}},
		},
		{
			name: "edge to a tier that does not wait",
			files: map[string]string{
				tierFile("controllers"): tier("controllers", "./controllers", true),
				"controllers/hr.yaml":   certManager,
				tierFile("configs"):     tier("configs", "./configs", true, dependsOn("controllers")...),
				"configs/ci.yaml":       issuer,
			},
			rule: "missing-wait",
			want: []want{{Rule: "missing-wait", Severity: Warning, Kustomization: "flux-system/configs",
				Object: "ClusterIssuer.cert-manager.io/letsencrypt", File: "configs/ci.yaml", Line: 2,
				Sugg: []string{"Set `wait: true` on Kustomization flux-system/controllers, or add a healthCheck for its HelmRelease of chart cert-manager."}}},
		},
		{
			name: "edge to a tier that waits",
			files: map[string]string{
				tierFile("controllers"): tier("controllers", "./controllers", true, "wait: true"),
				"controllers/hr.yaml":   certManager,
				tierFile("configs"):     tier("configs", "./configs", true, dependsOn("controllers")...),
				"configs/ci.yaml":       issuer,
			},
			rule: "missing-wait",
		},
		{
			name: "another chart's HelmRelease is no provider",
			files: map[string]string{
				tierFile("apps"): tier("apps", "./apps", true),
				"apps/hr.yaml": obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "web", "web",
					"spec:", "  chart:", "    spec:", "      chart: podinfo", "      sourceRef: {kind: HelmRepository, name: podinfo}"),
				"apps/ci.yaml": issuer,
			},
			rule: "runtime-crd-same-pass",
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
