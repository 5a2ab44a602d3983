package rules

import (
	"testing"

	"github.com/tiergate/tiergate/internal/config"
)

// TestMissingCRD covers kinds that nothing serves: not built in, no CRD in any build or
// rendered chart, no catalog trigger in the cluster, not preinstalled, not Flux's own.
func TestMissingCRD(t *testing.T) {
	externalSecret := obj("external-secrets.io/v1", "ExternalSecret", "apps", "db", "spec: {}")
	widget := obj("example.com/v1", "Widget", "apps", "w1", "spec: {}")
	apps := func(files map[string]string, extra ...string) map[string]string {
		return merge(map[string]string{tierFile("apps"): tier("apps", "./apps", true, extra...)}, files)
	}
	missing := func(object, file, kind, apiVersion string, msg ...string) want {
		return want{Rule: "missing-crd", Severity: Error, Kustomization: "flux-system/apps", Object: object, File: file, Line: 2,
			Msg:  append([]string{"which no CRD of cluster dev provides", "The dry-run of flux-system/apps fails with 'no matches for kind \"" + kind + "\" in version \"" + apiVersion + "\"'"}, msg...),
			Sugg: []string{"remove " + object + " from " + file + ":2", "preinstalledCRDs.groups"}}
	}
	certManager := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "cert-manager", "cert-manager",
		"spec:", "  chart:", "    spec:", "      chart: external-secrets", "      sourceRef: {kind: HelmRepository, name: es}", "  interval: 10m")
	cases := []struct {
		name  string
		files map[string]string
		pre   []string
		want  []want
	}{
		{
			name:  "ExternalSecret where nothing installs external-secrets",
			files: apps(map[string]string{"apps/es.yaml": externalSecret, "apps/es2.yaml": obj("external-secrets.io/v1", "ExternalSecret", "apps", "db2", "spec: {}")}),
			want: []want{missing("ExternalSecret.external-secrets.io/apps/db", "apps/es.yaml", "ExternalSecret", "external-secrets.io/v1",
				"(the runtime-CRD catalog has it from a HelmRelease of chart external-secrets, and cluster dev has none)")},
		},
		{
			name:  "custom kind without a CRD",
			files: apps(map[string]string{"apps/w.yaml": widget}),
			want:  []want{missing("Widget.example.com/apps/w1", "apps/w.yaml", "Widget", "example.com/v1")},
		},
		{
			name: "CRD in another Kustomization",
			files: apps(map[string]string{"apps/w.yaml": widget,
				tierFile("crds"): tier("crds", "./crds", true), "crds/crd.yaml": crd("example.com", "Widget", "widgets", "Namespaced")}),
		},
		{
			name:  "a Kustomization with remote resources not fetched: its bundle may ship the CRD",
			files: apps(map[string]string{"apps/w.yaml": widget, "apps/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - https://github.com/example/widget/releases/download/v1.0.0/install.yaml\n  - w.yaml\n"}),
		},
		{name: "preinstalled group", files: apps(map[string]string{"apps/w.yaml": widget}), pre: []string{"example.com"}},
		{name: "built-in kinds", files: apps(map[string]string{"apps/cm.yaml": configMap("apps", "cm"), "apps/d.yaml": deployment("apps", "d")})},
		{name: "Flux kinds without Flux CRDs in the graph", files: apps(map[string]string{"apps/r.yaml": obj("notification.toolkit.fluxcd.io/v1beta3", "Alert", "apps", "a", "spec: {}")})},
		{
			name: "a Flux kind the graph's Flux CRDs lack",
			files: apps(map[string]string{"apps/r.yaml": obj("image.toolkit.fluxcd.io/v1", "ImagePolicy", "apps", "p", "spec: {}"),
				tierFile("crds"): tier("crds", "./crds", true), "crds/crd.yaml": crd("kustomize.toolkit.fluxcd.io", "Kustomization", "kustomizations", "Namespaced"),
				"crds/src.yaml": crd("source.toolkit.fluxcd.io", "GitRepository", "gitrepositories", "Namespaced")}),
			want: []want{func() want {
				w := missing("ImagePolicy.image.toolkit.fluxcd.io/apps/p", "apps/r.yaml", "ImagePolicy", "image.toolkit.fluxcd.io/v1",
					"The cluster's Flux CRDs (gotk-components.yaml) are those of the controllers it installs, and image-reflector-controller is not among them.")
				w.Sugg = append(w.Sugg, "Install image-reflector-controller: regenerate the Flux manifests with `flux install --export` (or `flux bootstrap`) and --components-extra=image-reflector-controller. Otherwise: Install the CRD")
				return w
			}()},
		},
		{name: "Gateway API, served by distributions", files: apps(map[string]string{"apps/r.yaml": obj("gateway.networking.k8s.io/v1", "HTTPRoute", "apps", "r", "spec: {}")})},
		{name: "flux-operator kind", files: apps(map[string]string{"apps/r.yaml": obj("fluxcd.controlplane.io/v1", "ResourceSetInputProvider", "apps", "r", "spec: {}")})},
		{
			name: "a flux-operator kind its CRDs in the graph lack",
			files: apps(map[string]string{"apps/r.yaml": obj("fluxcd.controlplane.io/v1", "FluxReport", "apps", "r", "spec: {}"),
				tierFile("crds"): tier("crds", "./crds", true), "crds/crd.yaml": crd("fluxcd.controlplane.io", "FluxInstance", "fluxinstances", "Namespaced")}),
			want: []want{missing("FluxReport.fluxcd.controlplane.io/apps/r", "apps/r.yaml", "FluxReport", "fluxcd.controlplane.io/v1")},
		},
		{
			name: "catalog chart in the cluster, not rendered: its trigger counts",
			files: apps(map[string]string{"apps/es.yaml": externalSecret,
				tierFile("es"): tier("es", "./es", true, "suspend: false"), "es/hr.yaml": certManager}),
		},
		{
			name: "a chart not rendered: unknown, one notice per kind",
			files: apps(map[string]string{"apps/w.yaml": widget, "apps/hr.yaml": obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "apps", "podinfo",
				"spec:", "  chart:", "    spec:", "      chart: podinfo", "      sourceRef: {kind: HelmRepository, name: podinfo}", "  interval: 10m"),
				tierFile("more"): tier("more", "./more", true), "more/w.yaml": obj("example.com/v1", "Widget", "apps", "w2", "spec: {}")}),
			want: []want{{Rule: "missing-crd", Severity: Notice, Kustomization: "flux-system/apps", Object: "Widget.example.com/apps/w1", File: "apps/w.yaml", Line: 2,
				Msg: []string{"No reviewed Kustomization or chart of cluster dev installs the CRD of Widget.example.com, used by Widget.example.com/apps/w1 and maybe others; not checked, since HelmRelease apps/podinfo (chart not rendered) may install it."}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			env := &Env{Catalog: NewCatalog(nil, config.Preinstalled{Groups: tc.pre}), Strict: true}
			checkFindings(t, stateRule(t, "missing-crd")(c, nil, env), tc.want)
		})
	}
}

// TestMissingCRDUnknownHelmfile: a bootstrap helmfile release tiergate could not read may
// install any CRD, so the finding is a notice naming it.
func TestMissingCRDUnknownHelmfile(t *testing.T) {
	c := renderTree(t, map[string]string{tierFile("apps"): tier("apps", "./apps", true),
		"apps/w.yaml": obj("example.com/v1", "Widget", "apps", "w1", "spec: {}")})
	env := &Env{Catalog: NewCatalog(nil), UnknownCRDs: []string{"the bootstrap helmfile release at helmfile.yaml:4"}}
	checkFindings(t, stateRule(t, "missing-crd")(c, nil, env), []want{{Rule: "missing-crd", Severity: Notice, Kustomization: "flux-system/apps",
		Object: "Widget.example.com/apps/w1", File: "apps/w.yaml", Line: 2,
		Msg: []string{"not checked, since the bootstrap helmfile release at helmfile.yaml:4 may install it."}}})
}
