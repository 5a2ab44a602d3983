package rules

import "testing"

// TestDuplicateOwnerChart: a chart and a Kustomization, or two charts, rendering the same
// object fight over it; a CRD of crds/ that Helm only creates when missing does not.
func TestDuplicateOwnerChart(t *testing.T) {
	tiers := map[string]string{tierFile("a"): tier("a", "./a", true), "a/hr.yaml": helmRelease("default", "app", "app")}
	cm := map[string]string{"templates/cm.yaml": configMap("", "cm")}
	widgets := crd("example.com", "Widget", "widgets", "Namespaced")
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{
			name:  "a chart and the manifests of its own Kustomization",
			files: merge(tiers, chart("app", cm), map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			want: []want{{Rule: "duplicate-owner", Severity: Error, Kustomization: "flux-system/a", Object: "ConfigMap/default/cm", File: "a/hr.yaml", Line: 2,
				Msg:  []string{"ConfigMap/default/cm is applied by both flux-system/a (a/cm.yaml:2) and flux-system/a › HelmRelease default/app (chart template app/templates/cm.yaml): kustomize-controller and helm-controller overwrite each other's version"},
				Sugg: []string{"remove it from a/cm.yaml or from the chart of HelmRelease default/app (template app/templates/cm.yaml"}}},
		},
		{
			name: "a chart that does not take ownership",
			files: merge(map[string]string{tierFile("a"): tier("a", "./a", true), "a/hr.yaml": helmRelease("default", "app", "app", "upgrade: {disableTakeOwnership: true}")},
				chart("app", cm), map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			want: []want{{Rule: "duplicate-owner", Severity: Error, Kustomization: "flux-system/a", Object: "ConfigMap/default/cm", File: "a/hr.yaml", Line: 2,
				Msg: []string{"ConfigMap/default/cm is applied by both flux-system/a (a/cm.yaml:2) and flux-system/a › HelmRelease default/app (chart template app/templates/cm.yaml): " +
					"kustomize-controller and helm-controller overwrite each other's version; and HelmRelease default/app sets spec.upgrade.disableTakeOwnership, so Helm refuses the object when another owner created it first " +
					"('invalid ownership metadata': helm pkg/action/validate.go existingResourceConflict) and that install or upgrade fails, and whichever prunes, upgrades without it or uninstalls deletes it from under the other."}}},
		},
		{
			name:  "two charts",
			files: merge(tiers, chart("app", cm), chart("two", cm), map[string]string{"a/two.yaml": helmRelease("default", "two", "two")}),
			want: []want{{Rule: "duplicate-owner", Severity: Error, Kustomization: "flux-system/a", Object: "ConfigMap/default/cm", File: "a/two.yaml", Line: 2,
				Msg: []string{"the two Helm releases take it from each other on every upgrade"}}},
		},
		{
			name:  "negative: a CRD of crds/ that a Kustomization also applies, default policy",
			files: merge(tiers, chart("app", map[string]string{"crds/w.yaml": widgets}), map[string]string{"a/crd.yaml": widgets}),
		},
		{
			name: "negative: a CRD of crds/ under install CreateReplace only: the release writes it at install, never on upgrade",
			files: merge(map[string]string{tierFile("a"): tier("a", "./a", true), "a/hr.yaml": helmRelease("default", "app", "app", "install: {crds: CreateReplace}")},
				chart("app", map[string]string{"crds/w.yaml": widgets}), map[string]string{"a/crd.yaml": widgets}),
		},
		{
			name: "a CRD of crds/ under upgrade CreateReplace: both write it, neither deletes it",
			files: merge(map[string]string{tierFile("a"): tier("a", "./a", true), "a/hr.yaml": helmRelease("default", "app", "app", "upgrade: {crds: CreateReplace}")},
				chart("app", map[string]string{"crds/w.yaml": widgets}), map[string]string{"a/crd.yaml": widgets}),
			want: []want{{Rule: "duplicate-owner", Severity: Warning, Kustomization: "flux-system/a", Object: "CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com", File: "a/hr.yaml", Line: 2,
				Msg: []string{"CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com is written by both flux-system/a (a/crd.yaml:2) and flux-system/a › HelmRelease default/app (chart template app/crds/w.yaml): " +
					"HelmRelease default/app sets spec.upgrade.crds: CreateReplace, so every upgrade replaces it with the chart's copy and the next apply of the other owner writes its own back; " +
					"neither deletes it (Helm never deletes the CRDs of crds/)."},
				Sugg: []string{"Keep CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com in one place: remove it from a/crd.yaml, or from the chart's crds/ (app/crds/w.yaml), " +
					"or set spec.upgrade.crds to Create on HelmRelease default/app so that its upgrades leave it to flux-system/a."}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "duplicate-owner")(c, nil, testEnv()), tc.want)
		})
	}
}
