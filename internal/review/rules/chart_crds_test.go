package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/config"
)

// TestChartInstalledCRDs covers CRDs that a HelmRelease installs (the chart catalog):
// a custom resource beside the HelmRelease deadlocks a cold cluster; in another tier it
// needs an edge to the HelmRelease's tier, and that tier must wait.
func TestChartInstalledCRDs(t *testing.T) {
	certManager := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "cert-manager", "cert-manager",
		"spec:", "  chart:", "    spec:", "      chart: cert-manager", "      sourceRef: {kind: HelmRepository, name: jetstack}", "  interval: 10m")
	viaOCI := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "cert-manager", "cert-manager",
		"spec:", "  chartRef: {kind: OCIRepository, name: cert-manager}", "  interval: 10m") + "---\n" +
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
				Msg: []string{"created at runtime once HelmRelease.helm.toolkit.fluxcd.io/cert-manager/cert-manager reconciles",
					"the CRD never appears; based on the chart catalog: the chart was not rendered."},
				Sugg: []string{"Move ClusterIssuer.cert-manager.io/letsencrypt (certs/ci.yaml:2) to a new Kustomization that dependsOn flux-system/certs, and set `wait: true` on flux-system/certs (clusters/dev/certs.yaml:2), " +
					"so that it is applied only once HelmRelease cert-manager/cert-manager is Ready (its chart installed, CRDs included). " +
					"dependsOn alone is not enough: kustomize-controller starts a dependent once flux-system/certs is Ready, and without `wait: true` or a healthCheck on HelmRelease.helm.toolkit.fluxcd.io/cert-manager/cert-manager that is as soon as it has applied, before the CRD exists.\n  # Kustomization flux-system/certs\n  spec:\n    wait: true\n" +
					"  # the new Kustomization, e.g. flux-system/certs-clusterissuers, with the same sourceRef and a path holding ci.yaml\n  spec:\n    dependsOn:\n      - name: certs"}}},
		},
		{
			name: "issuer beside the chart in a tier that waits: no wait line",
			files: map[string]string{
				tierFile("certs"): tier("certs", "./certs", true, "wait: true"),
				"certs/hr.yaml":   certManager,
				"certs/ci.yaml":   issuer,
			},
			rule: "runtime-crd-same-pass",
			want: []want{{Rule: "runtime-crd-same-pass", Severity: Error, Kustomization: "flux-system/certs",
				Object: "ClusterIssuer.cert-manager.io/letsencrypt", File: "certs/ci.yaml", Line: 2,
				Sugg: []string{"Move ClusterIssuer.cert-manager.io/letsencrypt (certs/ci.yaml:2) to a new Kustomization that dependsOn flux-system/certs, " +
					"so that it is applied only once HelmRelease cert-manager/cert-manager is Ready (its chart installed, CRDs included). " +
					"flux-system/certs already has `wait: true`, so it is Ready only once HelmRelease.helm.toolkit.fluxcd.io/cert-manager/cert-manager is healthy, and its dependents start after that.\n" +
					"  # the new Kustomization, e.g. flux-system/certs-clusterissuers, with the same sourceRef and a path holding ci.yaml\n  spec:\n    dependsOn:\n      - name: certs"}}},
		},
		{
			// A rendered chart says what it installs: the catalog's entry for its name is
			// not used (an in-repo chart named cert-manager without the CRDs).
			name: "rendered chart of the catalog's name without the CRD",
			files: map[string]string{
				tierFile("certs"): tier("certs", "./certs", true),
				"certs/hr.yaml": obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "cert-manager", "cert-manager",
					"spec:", "  chart:", "    spec:", "      chart: ./charts/cert-manager", "      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}", "  interval: 10m"),
				"certs/ns.yaml":                         namespaceObj("cert-manager"),
				"charts/cert-manager/Chart.yaml":        "apiVersion: v2\nname: cert-manager\nversion: 0.1.0\n",
				"charts/cert-manager/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
				"certs/ci.yaml":                         issuer,
			},
			rule: "runtime-crd-same-pass",
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
				Msg: []string{"needs the CRD of ClusterIssuer.cert-manager.io (created at runtime by the HelmRelease of chart cert-manager; based on the chart catalog: the chart was not rendered) from flux-system/controllers"}}},
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
					"spec:", "  chart:", "    spec:", "      chart: podinfo", "      sourceRef: {kind: HelmRepository, name: podinfo}", "  interval: 10m"),
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

func TestPreinstalledCRDsNeedNoEdge(t *testing.T) {
	files := map[string]string{
		tierFile("certs"): tier("certs", "./certs", true),
		"certs/hr.yaml": obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "cert-manager", "cert-manager",
			"spec:", "  chart:", "    spec:", "      chart: cert-manager", "      sourceRef: {kind: HelmRepository, name: jetstack}", "  interval: 10m"),
		"certs/ci.yaml":   obj("cert-manager.io/v1", "ClusterIssuer", "", "letsencrypt", "spec: {selfSigned: {}}"),
		tierFile("apps"):  tier("apps", "./apps", true),
		"apps/cert.yaml":  obj("cert-manager.io/v1", "Certificate", "default", "web", "spec: {secretName: web-tls, issuerRef: {kind: ClusterIssuer, name: letsencrypt}}"),
		"apps/sm.yaml":    obj("monitoring.coreos.com/v1", "ServiceMonitor", "default", "web", "spec: {}"),
		"infra/crds.yaml": crd("monitoring.coreos.com", "ServiceMonitor", "servicemonitors", "Namespaced"),
		tierFile("infra"): tier("infra", "./infra", true),
	}
	c := renderTree(t, files)
	checkBuilt(t, c)
	for _, tc := range []struct {
		name string
		pre  config.Preinstalled
		want []string
	}{
		{"nothing preinstalled", config.Preinstalled{}, []string{
			"missing-depends-on flux-system/apps Certificate.cert-manager.io/default/web",
			"missing-depends-on flux-system/apps ServiceMonitor.monitoring.coreos.com/default/web",
			"runtime-crd-same-pass flux-system/certs ClusterIssuer.cert-manager.io/letsencrypt",
		}},
		// The Certificate still needs the ClusterIssuer object itself.
		{"chart and group preinstalled", config.Preinstalled{Charts: []string{"cert-manager"}, Groups: []string{"monitoring.coreos.com"}}, []string{
			"missing-depends-on flux-system/apps Certificate.cert-manager.io/default/web",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := &Env{Catalog: NewCatalog(nil, tc.pre), Strict: true}
			var got []string
			for _, id := range []string{"missing-depends-on", "runtime-crd-same-pass"} {
				for _, f := range stateRule(t, id)(c, nil, env) {
					got = append(got, f.Rule+" "+f.Kustomization+" "+f.Object.String())
				}
			}
			if !cmp.Equal(tc.want, got) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
