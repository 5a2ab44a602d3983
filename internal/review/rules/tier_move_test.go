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
			base, head := renderBuilt(t, tc.base, tc.head)
			checkFindings(t, changeRule(t, "tier-move")(base, head, testEnv()), tc.want)
		})
	}
}

// TestTierMoveCreatedNamespace: the Namespace that install.createNamespace made was never
// a release object (helm pkg/action/install.go creates it apart from the manifest), so a
// Kustomization taking it over is not a move out of the release: the notice says the
// Kustomization owns it now, and that with prune its garbage collection deletes the
// Namespace once the manifest goes; without prune, that it stays.
func TestTierMoveCreatedNamespace(t *testing.T) {
	cm := chart("app", map[string]string{"templates/cm.yaml": configMap("", "cm")})
	hr := map[string]string{"a/hr.yaml": helmRelease("default", "app", "app", "targetNamespace: app-system", "install: {createNamespace: true}")}
	for _, tc := range []struct {
		name  string
		prune bool
		msg   string
		sugg  string
	}{
		{"prune", true, "Namespace/app-system, which install.createNamespace of HelmRelease default/app created outside its release, is now applied by Kustomization flux-system/a, which owns it from now on: " +
			"it has prune enabled, so removing this manifest later deletes the Namespace and everything in it (Helm never deleted it).",
			"No action needed if flux-system/a is meant to own Namespace/app-system; to keep it beyond a later removal of the manifest, annotate it `kustomize.toolkit.fluxcd.io/prune: disabled`."},
		{"no prune", false, "Namespace/app-system, which install.createNamespace of HelmRelease default/app created outside its release, is now applied by Kustomization flux-system/a, which owns it from now on: " +
			"it does not prune, so removing this manifest later leaves the Namespace in the cluster.",
			"No action needed if flux-system/a is meant to own Namespace/app-system."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tiers := map[string]string{tierFile("a"): tier("a", "./a", tc.prune), "a/keep.yaml": configMap("default", "keep-a")}
			base := renderTree(t, merge(tiers, hr, cm))
			head := renderTree(t, merge(tiers, hr, cm, map[string]string{"a/ns.yaml": namespaceObj("app-system")}))
			got := changeRule(t, "tier-move")(base, head, testEnv())
			checkFindings(t, got, []want{{Rule: "tier-move", Severity: Notice, Kustomization: "flux-system/a", Object: "Namespace/app-system", File: "a/ns.yaml", Line: 2}})
			if got[0].Message != tc.msg || got[0].Suggestion != tc.sugg {
				t.Errorf("got\n%s\n%s\nwant\n%s\n%s", got[0].Message, got[0].Suggestion, tc.msg, tc.sugg)
			}
		})
	}
}
