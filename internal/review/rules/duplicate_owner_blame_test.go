package rules

import "testing"

// TestDuplicateOwnerBlamesTheChange: the finding points at the owner the change adds (the
// manifest a PR adds next to an unchanged chart, or a second Kustomization's copy), naming
// the one it collides with; without the other commit, or when both are new, build order.
func TestDuplicateOwnerBlamesTheChange(t *testing.T) {
	chartTier := merge(map[string]string{tierFile("a"): tier("a", "./a", true), "a/hr.yaml": helmRelease("default", "app", "app")},
		chart("app", map[string]string{"templates/cm.yaml": configMap("", "cm")}))
	twoTiers := map[string]string{tierFile("a"): tier("a", "./a", true), tierFile("b"): tier("b", "./b", true), "b/keep.yaml": configMap("default", "keep")}
	chartMsg := "ConfigMap/default/cm is applied by both flux-system/a › HelmRelease default/app (chart template app/templates/cm.yaml) and flux-system/a (a/cm.yaml:2): " +
		"kustomize-controller and helm-controller overwrite each other's version, and whichever prunes, upgrades without it or uninstalls deletes it from under the other."
	cases := []struct {
		name       string
		base, head map[string]string
		want       []want
	}{
		{
			name: "a manifest added next to an unchanged chart: the manifest",
			base: chartTier,
			head: merge(chartTier, map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			want: []want{{Rule: "duplicate-owner", Severity: Error, Kustomization: "flux-system/a", Object: "ConfigMap/default/cm", File: "a/cm.yaml", Line: 2,
				Msg:  []string{chartMsg},
				Sugg: []string{"Keep ConfigMap/default/cm in one place: remove it from the chart of HelmRelease default/app (template app/templates/cm.yaml, or disable it in the values at a/hr.yaml:2) or from a/cm.yaml."}}},
		},
		{
			name: "a HelmRelease added next to an unchanged manifest: the HelmRelease",
			base: merge(chartTier, map[string]string{"a/hr.yaml": configMap("default", "other"), "a/cm.yaml": configMap("default", "cm")}),
			head: merge(chartTier, map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			want: []want{{Rule: "duplicate-owner", Severity: Error, Kustomization: "flux-system/a", Object: "ConfigMap/default/cm", File: "a/hr.yaml", Line: 2,
				Msg: []string{"ConfigMap/default/cm is applied by both flux-system/a (a/cm.yaml:2) and flux-system/a › HelmRelease default/app (chart template app/templates/cm.yaml)"}}},
		},
		{
			name: "a copy added to the Kustomization built first: the copy",
			base: merge(twoTiers, map[string]string{"b/cm.yaml": configMap("default", "cm")}),
			head: merge(twoTiers, map[string]string{"b/cm.yaml": configMap("default", "cm"), "a/cm.yaml": configMap("default", "cm")}),
			want: []want{{Rule: "duplicate-owner", Severity: Error, Kustomization: "flux-system/a", Object: "ConfigMap/default/cm", File: "a/cm.yaml", Line: 2,
				Msg:  []string{"ConfigMap/default/cm is emitted by both flux-system/b (b/cm.yaml:2) and flux-system/a: the two Kustomizations overwrite each other on every reconcile and either may prune it."},
				Sugg: []string{"Keep ConfigMap/default/cm in one Kustomization only: remove it from b/cm.yaml or from a/cm.yaml."}}},
		},
		{
			name: "both new: build order",
			base: twoTiers,
			head: merge(twoTiers, map[string]string{"b/cm.yaml": configMap("default", "cm"), "a/cm.yaml": configMap("default", "cm")}),
			want: []want{{Rule: "duplicate-owner", Severity: Error, Kustomization: "flux-system/b", Object: "ConfigMap/default/cm", File: "b/cm.yaml", Line: 2,
				Msg: []string{"ConfigMap/default/cm is emitted by both flux-system/a (a/cm.yaml:2) and flux-system/b:"}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderTree(t, tc.base), renderTree(t, tc.head)
			checkBuilt(t, head)
			checkFindings(t, stateRule(t, "duplicate-owner")(head, base, testEnv()), tc.want)
		})
	}
}
