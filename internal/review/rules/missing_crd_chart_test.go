package rules

import (
	"strings"
	"testing"
)

// TestMissingCRDChart: a kind a chart renders that no CRD of the cluster provides fails
// helm-controller's install (Helm builds the manifest through the REST mapper first); one
// finding per HelmRelease and kind, at the HelmRelease, naming the chart template.
func TestMissingCRDChart(t *testing.T) {
	sm := func(name string) string {
		return "apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: " + name + "\nspec: {}\n"
	}
	apps := func(files ...map[string]string) map[string]string {
		return merge(append([]map[string]string{{tierFile("apps"): tier("apps", "./apps", true),
			"apps/hr.yaml": helmRelease("apps", "podinfo", "podinfo")}}, files...)...)
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{
			name: "ServiceMonitor where nothing installs monitoring.coreos.com: one finding for two objects",
			files: apps(chart("podinfo", map[string]string{"templates/sm.yaml": sm("podinfo"), "templates/sm2.yaml": sm("podinfo-2"),
				"templates/cm.yaml": configMap("", "settings")})),
			want: []want{{Rule: "missing-crd", Severity: Error, Kustomization: "flux-system/apps",
				Object: "ServiceMonitor.monitoring.coreos.com/apps/podinfo", File: "apps/hr.yaml", Line: 2,
				Msg:  []string{"ServiceMonitor.monitoring.coreos.com/apps/podinfo, rendered by chart template podinfo/templates/sm.yaml of HelmRelease apps/podinfo, is of kind ServiceMonitor.monitoring.coreos.com, which no CRD of cluster dev provides: no Kustomization or chart installs one (the runtime-CRD catalog has it from a HelmRelease of chart kube-prometheus-stack or a HelmRelease of chart prometheus-operator-crds, and cluster dev has none), it is not declared preinstalled, and it is not built in. helm-controller's install or upgrade of apps/podinfo fails with 'unable to build kubernetes objects from release manifest: resource mapping not found ... no matches for kind \"ServiceMonitor\" in version \"monitoring.coreos.com/v1\"' on every reconcile and applies nothing of the release."},
				Sugg: []string{"Install the CRD of ServiceMonitor.monitoring.coreos.com in this cluster before HelmRelease apps/podinfo (its chart in a HelmRelease that apps/podinfo dependsOn, or its CRD manifests in a Kustomization applied first), turn off what renders podinfo/templates/sm.yaml in the values of HelmRelease apps/podinfo (apps/hr.yaml:2), or, if the cluster has the CRD before Flux runs, declare group monitoring.coreos.com under preinstalledCRDs.groups in .tiergate.yaml."}}},
		},
		{
			name: "the CRD in another Kustomization",
			files: apps(chart("podinfo", map[string]string{"templates/sm.yaml": sm("podinfo")}),
				map[string]string{tierFile("crds"): tier("crds", "./crds", true), "crds/sm.yaml": crd("monitoring.coreos.com", "ServiceMonitor", "servicemonitors", "Namespaced")}),
		},
		{
			name:  "the CRD in the chart's crds",
			files: apps(chart("podinfo", map[string]string{"templates/sm.yaml": sm("podinfo"), "crds/sm.yaml": crd("monitoring.coreos.com", "ServiceMonitor", "servicemonitors", "Namespaced")})),
		},
		// install.crds: Skip leaves the chart's crds/ uninstalled: the message names the
		// policy as the cause, for the chart's own objects and for a CR of another tier.
		{
			name: "the CRD in the chart's crds under install.crds Skip",
			files: merge(chart("podinfo", map[string]string{"templates/sm.yaml": sm("podinfo"), "crds/sm.yaml": crd("monitoring.coreos.com", "ServiceMonitor", "servicemonitors", "Namespaced")}),
				map[string]string{tierFile("apps"): tier("apps", "./apps", true), "apps/hr.yaml": helmRelease("apps", "podinfo", "podinfo", "install:", "  crds: Skip"),
					tierFile("config"): tier("config", "./config", true, dependsOn("apps")...), "config/sm.yaml": obj("monitoring.coreos.com/v1", "ServiceMonitor", "apps", "extra", "spec: {}")}),
			want: []want{{Rule: "missing-crd", Severity: Error, Kustomization: "flux-system/apps",
				Object: "ServiceMonitor.monitoring.coreos.com/apps/podinfo", File: "apps/hr.yaml", Line: 2,
				Msg: []string{"ServiceMonitor.monitoring.coreos.com/apps/podinfo (chart template podinfo/templates/sm.yaml of HelmRelease apps/podinfo) is of kind ServiceMonitor.monitoring.coreos.com: " +
					"HelmRelease apps/podinfo's chart ships the CRD of ServiceMonitor.monitoring.coreos.com in crds/, but its spec.install.crds is Skip (apps/hr.yaml:13), so helm-controller never installs it (applyCRDs skips crds/ under that policy) and no other Kustomization or chart of cluster dev does; " +
					"helm-controller's install or upgrade of apps/podinfo fails with 'unable to build kubernetes objects from release manifest: resource mapping not found ... no matches for kind \"ServiceMonitor\" in version \"monitoring.coreos.com/v1\"' and applies nothing of the release."},
				Sugg: []string{"Set `crds: CreateReplace` (or `Create`) under spec.install of HelmRelease apps/podinfo (apps/hr.yaml:13) so that helm-controller installs the chart's CRDs, or install the CRD of ServiceMonitor.monitoring.coreos.com from a CRD tier (a Kustomization with the CRD manifests, `wait: true`) that flux-system/apps dependsOn."}},
				{Rule: "missing-crd", Severity: Error, Kustomization: "flux-system/config",
					Object: "ServiceMonitor.monitoring.coreos.com/apps/extra", File: "config/sm.yaml", Line: 2,
					Msg: []string{"ServiceMonitor.monitoring.coreos.com/apps/extra is of kind ServiceMonitor.monitoring.coreos.com: HelmRelease apps/podinfo's chart ships the CRD of ServiceMonitor.monitoring.coreos.com in crds/, but its spec.install.crds is Skip (apps/hr.yaml:13)",
						"the dry-run of flux-system/config fails with 'no matches for kind \"ServiceMonitor\" in version \"monitoring.coreos.com/v1\"' on every reconcile and applies nothing."},
					Sugg: []string{"that flux-system/config dependsOn."}}},
		},
		// Negative: Create installs them.
		{
			name: "the CRD in the chart's crds under install.crds Create",
			files: merge(chart("podinfo", map[string]string{"templates/sm.yaml": sm("podinfo"), "crds/sm.yaml": crd("monitoring.coreos.com", "ServiceMonitor", "servicemonitors", "Namespaced")}),
				map[string]string{tierFile("apps"): tier("apps", "./apps", true), "apps/hr.yaml": helmRelease("apps", "podinfo", "podinfo", "install:", "  crds: Create")}),
		},
		{
			name:  "built-in kinds only",
			files: apps(chart("podinfo", map[string]string{"templates/cm.yaml": configMap("", "settings")})),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "missing-crd")(c, nil, testEnv()), tc.want)
		})
	}
}

// TestMissingCRDKept: a CR whose CRD a removed HelmRelease's chart installed and Helm
// leaves (crds/, or helm.sh/resource-policy: keep) fails only on clusters bootstrapped
// from head: running clusters keep the CRD, and the message says which is which. A CRD
// the uninstall deletes gives the plain message.
func TestMissingCRDKept(t *testing.T) {
	tiers := map[string]string{tierFile("platform"): tier("platform", "./platform", true, "wait: true"), "platform/ns.yaml": namespaceObj("default"),
		tierFile("config"): tier("config", "./config", true, dependsOn("platform")...), "config/w.yaml": obj("example.com/v1", "Widget", "default", "w1", "spec: {}")}
	hr := map[string]string{"platform/hr.yaml": helmRelease("default", "app", "app")}
	w := crd("example.com", "Widget", "widgets", "Namespaced")
	const fails = "The dry-run of flux-system/config fails with 'no matches for kind \"Widget\" in version \"example.com/v1\"'"
	const head = "Widget.example.com/default/w1 is of kind Widget.example.com, which no CRD of cluster dev provides: no Kustomization or chart installs one, it is not declared preinstalled, and it is not built in. "
	for _, tc := range []struct {
		name, file, crd, msg string
	}{
		{"CRD of crds/", "crds/w.yaml", w, head + "Clusters where release default/app ran keep CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com (a CRD of the chart's crds/ (app/crds/w.yaml), which helm-controller applies outside release default/app: the uninstall leaves it), so the kind is served there; " +
			"a cluster bootstrapped from this commit never gets it: there " + strings.ToLower(fails[:1]) + fails[1:] + " on every reconcile and applies nothing."},
		{"templated CRD with keep", "templates/w.yaml", withAnnotation(w, "helm.sh/resource-policy", "keep"), head + "Clusters where release default/app ran keep CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com (annotated helm.sh/resource-policy: keep, so the uninstall of release default/app leaves it in the cluster, managed by nothing), so the kind is served there; " +
			"a cluster bootstrapped from this commit never gets it: there " + strings.ToLower(fails[:1]) + fails[1:] + " on every reconcile and applies nothing."},
		{"negative: templated CRD, deleted by the uninstall", "templates/w.yaml", w, head + fails + " on every reconcile and applies nothing."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := chart("app", map[string]string{"templates/cm.yaml": configMap("", "cm"), tc.file: tc.crd})
			base, head := renderTree(t, merge(tiers, hr, files)), renderTree(t, merge(tiers, files))
			checkFindings(t, stateRule(t, "missing-crd")(base, head, testEnv()), nil)
			got := stateRule(t, "missing-crd")(head, base, testEnv())
			checkFindings(t, got, []want{{Rule: "missing-crd", Severity: Error, Kustomization: "flux-system/config", Object: "Widget.example.com/default/w1", File: "config/w.yaml", Line: 2}})
			if got[0].Message != tc.msg {
				t.Errorf("message\n%s\nwant\n%s", got[0].Message, tc.msg)
			}
		})
	}
}

// TestMissingCRDKeptChart: the same for a chart's own custom resource: where the CRD's
// release ran, the kind is served and the upgrade passes; a new cluster's install fails.
func TestMissingCRDKeptChart(t *testing.T) {
	tiers := map[string]string{tierFile("platform"): tier("platform", "./platform", true, "wait: true"), "platform/ns.yaml": namespaceObj("default"),
		tierFile("apps"): tier("apps", "./apps", true, dependsOn("platform")...), "apps/hr.yaml": helmRelease("default", "app", "app")}
	charts := merge(chart("op", map[string]string{"crds/w.yaml": crd("example.com", "Widget", "widgets", "Namespaced"), "templates/cm.yaml": configMap("", "op")}),
		chart("app", map[string]string{"templates/w.yaml": obj("example.com/v1", "Widget", "", "w1", "spec: {}")}))
	base := renderTree(t, merge(tiers, charts, map[string]string{"platform/op.yaml": helmRelease("default", "op", "op")}))
	head := renderTree(t, merge(tiers, charts))
	got := stateRule(t, "missing-crd")(head, base, testEnv())
	checkFindings(t, got, []want{{Rule: "missing-crd", Severity: Error, Kustomization: "flux-system/apps", Object: "Widget.example.com/default/w1", File: "apps/hr.yaml", Line: 2}})
	const msg = "Widget.example.com/default/w1, rendered by chart template app/templates/w.yaml of HelmRelease default/app, is of kind Widget.example.com, which no CRD of cluster dev provides: no Kustomization or chart installs one, it is not declared preinstalled, and it is not built in. " +
		"Clusters where release default/op ran keep CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com (a CRD of the chart's crds/ (op/crds/w.yaml), which helm-controller applies outside release default/op: the uninstall leaves it), so the kind is served there; " +
		"a cluster bootstrapped from this commit never gets it: there helm-controller's install or upgrade of default/app fails with 'unable to build kubernetes objects from release manifest: resource mapping not found ... no matches for kind \"Widget\" in version \"example.com/v1\"' on every reconcile and applies nothing of the release."
	if got[0].Message != msg {
		t.Errorf("message\n%s\nwant\n%s", got[0].Message, msg)
	}
}
