package rules

import "testing"

func TestTierMove(t *testing.T) {
	tiers := map[string]string{
		tierFile("a"): tier("a", "./a", true),
		tierFile("b"): tier("b", "./b", true),
		"a/keep.yaml": configMap("default", "keep-a"),
		"b/keep.yaml": configMap("default", "keep-b"),
	}
	cases := []struct {
		name       string
		base, head map[string]string
		want       []want
	}{
		{
			name: "object moves from a to b",
			base: merge(tiers, map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			head: merge(tiers, map[string]string{"b/cm.yaml": configMap("default", "cm")}),
			want: []want{{
				Rule: "tier-move", Severity: Notice, Kustomization: "flux-system/b",
				Object: "ConfigMap/default/cm", File: "b/cm.yaml", Line: 2,
				Msg: []string{"ConfigMap/default/cm moves from Kustomization flux-system/a to flux-system/b."},
			}},
		},
		{
			name: "unchanged owner",
			base: merge(tiers, map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			head: merge(tiers, map[string]string{"a/cm.yaml": configMap("default", "cm", "data:", "  key: changed")}),
		},
		{
			name: "same owner in another file",
			base: merge(tiers, map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			head: merge(tiers, map[string]string{"a/sub/moved.yaml": configMap("default", "cm")}),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderTree(t, tc.base), renderTree(t, tc.head)
			checkBuilt(t, base)
			checkBuilt(t, head)
			checkFindings(t, changeRule(t, "tier-move")(base, head, testEnv()), tc.want)
		})
	}
}
