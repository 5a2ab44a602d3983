package rules

import (
	"testing"

	"github.com/tiergate/tiergate/internal/config"
)

// TestMissingCRDUnrenderedChart: a HelmRelease whose chart is not rendered softens
// missing-crd to a notice only for kinds it may plausibly install (a custom resource in its
// release namespace, a group its chart's or release's name names); never when the change
// itself removes the CRD from a Kustomization.
func TestMissingCRDUnrenderedChart(t *testing.T) {
	remoteHR := func(ns, name, chart string) string {
		return obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", ns, name,
			"spec:", "  chart:", "    spec:", "      chart: "+chart, "      sourceRef: {kind: HelmRepository, name: "+chart+"}", "  interval: 10m")
	}
	widget := obj("example.com/v1", "Widget", "apps", "w1", "spec: {}")
	apps := map[string]string{tierFile("apps"): tier("apps", "./apps", true), "apps/w.yaml": widget}
	crds := map[string]string{tierFile("crds"): tier("crds", "./crds", true), "crds/crd.yaml": crd("example.com", "Widget", "widgets", "Namespaced"), "crds/keep.yaml": configMap("default", "keep")}
	tools := func(hr string) map[string]string {
		return map[string]string{tierFile("tools"): tier("tools", "./tools", true), "tools/hr.yaml": hr}
	}
	const errMsg = "Widget.example.com/apps/w1 is of kind Widget.example.com, which no CRD of cluster dev provides: no Kustomization or chart installs one, it is not declared preinstalled, and it is not built in. " +
		"The dry-run of flux-system/apps fails with 'no matches for kind \"Widget\" in version \"example.com/v1\"' on every reconcile and applies nothing."
	const notice = "No reviewed Kustomization or chart of cluster dev installs the CRD of Widget.example.com, used by Widget.example.com/apps/w1 and maybe others; not checked, since HelmRelease apps/podinfo (chart not rendered) may install it."
	env := func() *Env { return &Env{Catalog: NewCatalog(nil, config.Preinstalled{}), Strict: true} }
	for _, tc := range []struct {
		name        string
		base, head  map[string]string
		severity    Severity
		object, msg string
	}{
		{"the change removes the CRD: certain, whatever the chart", merge(apps, crds, tools(remoteHR("apps", "podinfo", "podinfo"))), merge(apps, crds, tools(remoteHR("apps", "podinfo", "podinfo")), map[string]string{"crds/crd.yaml": configMap("default", "other")}),
			Error, "Widget.example.com/apps/w1", errMsg + " Certain: CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com (crds/crd.yaml:2) is applied at the other commit by Kustomization flux-system/crds, whose build at this one lacks it, " +
				"so the chart not rendered of HelmRelease apps/podinfo does not make it uncertain."},
		{"a chart in another namespace, naming another group: not counted", merge(apps, tools(remoteHR("tools", "podinfo", "podinfo"))), merge(apps, tools(remoteHR("tools", "podinfo", "podinfo"))),
			Error, "Widget.example.com/apps/w1", errMsg + " The chart not rendered of HelmRelease tools/podinfo is not counted: its release namespace is not apps, nothing ties it to group example.com (its chart's or release's name, the runtime-CRD catalog, or a CRD its chart rendered at the other commit)."},
		{"negative: a chart in the object's namespace counts", merge(apps, tools(remoteHR("apps", "podinfo", "podinfo"))), merge(apps, tools(remoteHR("apps", "podinfo", "podinfo"))),
			Notice, "Widget.example.com/apps/w1", notice},
		{"negative: a chart whose name names the group counts", merge(apps, tools(remoteHR("tools", "ops", "example-operator"))), merge(apps, tools(remoteHR("tools", "ops", "example-operator"))),
			Notice, "Widget.example.com/apps/w1", "No reviewed Kustomization or chart of cluster dev installs the CRD of Widget.example.com, used by Widget.example.com/apps/w1 and maybe others; not checked, since HelmRelease tools/ops (chart not rendered) may install it."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, head := renderTree(t, tc.base), renderTree(t, tc.head)
			got := stateRule(t, "missing-crd")(head, base, env())
			checkFindings(t, got, []want{{Rule: "missing-crd", Severity: tc.severity, Kustomization: "flux-system/apps", Object: tc.object, File: "apps/w.yaml", Line: 2}})
			if got[0].Message != tc.msg {
				t.Errorf("message:\n got %q\nwant %q", got[0].Message, tc.msg)
			}
		})
	}
}
