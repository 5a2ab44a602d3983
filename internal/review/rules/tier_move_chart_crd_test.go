package rules

import "testing"

// TestTierMoveChartCRD: a CRD of a chart's crds/ that a Kustomization now applies moves to
// that Kustomization whether or not the chart keeps it (an unbumped chart keeps the base's
// crds/): the release's upgrades under Create or Skip never write an existing CRD. Under
// upgrade CreateReplace the release still writes it, so it has not moved (duplicate-owner).
func TestTierMoveChartCRD(t *testing.T) {
	widgets := crd("example.com", "Widget", "widgets", "Namespaced")
	tiers := func(spec ...string) map[string]string {
		return map[string]string{tierFile("a"): tier("a", "./a", true), "a/hr.yaml": helmRelease("default", "app", "app", spec...)}
	}
	inChart := chart("app", map[string]string{"crds/w.yaml": widgets})
	plain := map[string]string{"a/crd.yaml": widgets}
	move := []want{{Rule: "tier-move", Severity: Notice, Kustomization: "flux-system/a", Object: "CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com", File: "a/crd.yaml", Line: 2,
		Msg: []string{"CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com moves from Kustomization flux-system/a › HelmRelease default/app to flux-system/a."}}}
	cases := []struct {
		name       string
		base, head map[string]string
		want       []want
	}{
		{"chart bumped: crds/ no longer has it", merge(tiers(), inChart), merge(tiers(), chart("app", nil), plain), move},
		{"chart not bumped: crds/ still has it, default policy", merge(tiers(), inChart), merge(tiers(), inChart, plain), move},
		{"chart not bumped, install CreateReplace only", merge(tiers("install: {crds: CreateReplace}"), inChart),
			merge(tiers("install: {crds: CreateReplace}"), inChart, plain), move},
		{"negative: upgrade CreateReplace, the release still writes it", merge(tiers("upgrade: {crds: CreateReplace}"), inChart),
			merge(tiers("upgrade: {crds: CreateReplace}"), inChart, plain), nil},
		{"negative: the CRD stays in crds/ alone", merge(tiers(), inChart), merge(tiers(), inChart), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderBuilt(t, tc.base, tc.head)
			checkFindings(t, changeRule(t, "tier-move")(base, head, testEnv()), tc.want)
		})
	}
}
