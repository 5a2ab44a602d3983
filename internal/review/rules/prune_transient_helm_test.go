package rules

import "testing"

// TestPruneTransientHelm: moves into, out of and between charts (docs/rules.md
// prune-transient): Kustomization→chart is always pruned by the old Kustomization (Helm
// keeps its labels), chart→anything by the old release's upgrade; nothing when the old
// owner leaves the object.
func TestPruneTransientHelm(t *testing.T) {
	cmTpl := map[string]string{"templates/cm.yaml": configMap("", "cm")}
	other := map[string]string{"templates/other.yaml": configMap("", "other")}
	tiers := func(aPrune bool, bSpec ...string) map[string]string {
		return map[string]string{
			tierFile("a"): tier("a", "./a", aPrune), "a/keep.yaml": configMap("default", "keep-a"),
			tierFile("b"): tier("b", "./b", true, bSpec...), "b/keep.yaml": configMap("default", "keep-b"),
		}
	}
	hrA := map[string]string{"a/hr.yaml": helmRelease("default", "app", "app")}
	hrB := map[string]string{"b/hr.yaml": helmRelease("default", "app", "app")}
	cases := []struct {
		name       string
		base, head map[string]string
		want       []want
	}{
		{
			name: "Kustomization manifests into a chart of the same Kustomization",
			base: merge(tiers(true), hrA, chart("app", other), map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			head: merge(tiers(true), hrA, chart("app", merge(other, cmTpl))),
			want: []want{{Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a", Object: "ConfigMap/default/cm", File: "a/cm.yaml", Line: 2,
				Msg:  []string{"moves from Kustomization flux-system/a into flux-system/a › HelmRelease default/app", "Helm never removes the kustomize.toolkit.fluxcd.io/name", "(certain; flux-system/a prunes it in the reconcile that applies the HelmRelease, and helm-controller re-creates it when it installs or upgrades the release)"},
				Sugg: []string{"kustomize.toolkit.fluxcd.io/prune: disabled", "a/cm.yaml"}}},
		},
		{
			name: "Kustomization manifests into a chart of an unordered Kustomization",
			base: merge(tiers(true), hrB, chart("app", other), map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			head: merge(tiers(true), hrB, chart("app", merge(other, cmTpl))),
			want: []want{{Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a", Object: "ConfigMap/default/cm", File: "a/cm.yaml", Line: 2,
				Msg: []string{"(certain; whichever runs first: when helm-controller applies it before flux-system/a prunes, the object stays deleted until the release's next upgrade)"}}},
		},
		{
			name: "a PersistentVolumeClaim into a chart is an error",
			base: merge(tiers(true), hrA, chart("app", other), map[string]string{"a/pvc.yaml": pvc("default", "data", "")}),
			head: merge(tiers(true), hrA, chart("app", merge(other, map[string]string{"templates/pvc.yaml": pvc("", "data", "")}))),
			want: []want{{Rule: "prune-transient", Severity: Error, Kustomization: "flux-system/a", Object: "PersistentVolumeClaim/default/data", File: "a/pvc.yaml", Line: 2}},
		},
		{
			name: "negative: into a chart with prune disabled on the object at base",
			base: merge(tiers(true), hrA, chart("app", other), map[string]string{"a/cm.yaml": withAnnotation(configMap("default", "cm"), "kustomize.toolkit.fluxcd.io/prune", "disabled")}),
			head: merge(tiers(true), hrA, chart("app", merge(other, cmTpl))),
		},
		{
			name: "negative: into a chart from a Kustomization without prune",
			base: merge(tiers(false), hrA, chart("app", other), map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			head: merge(tiers(false), hrA, chart("app", merge(other, cmTpl))),
		},
		{
			name: "chart to a Kustomization's manifests",
			base: merge(tiers(false), hrA, chart("app", merge(other, cmTpl))),
			head: merge(tiers(false), hrA, chart("app", other), map[string]string{"b/cm.yaml": configMap("default", "cm")}),
			want: []want{{Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a", Object: "ConfigMap/default/cm", File: "b/cm.yaml", Line: 2,
				Msg:  []string{"moves from flux-system/a › HelmRelease default/app to flux-system/b", "The upgrade of HelmRelease default/app deletes every object of its old manifest", "comes back only when flux-system/b next reconciles"},
				Sugg: []string{"`helm.sh/resource-policy: keep`", "template app/templates/cm.yaml"}}},
		},
		{
			name: "negative: chart to a Kustomization with helm.sh/resource-policy: keep at base",
			base: merge(tiers(false), hrA, chart("app", merge(other, map[string]string{"templates/cm.yaml": withAnnotation(configMap("", "cm"), "helm.sh/resource-policy", "keep")}))),
			head: merge(tiers(false), hrA, chart("app", other), map[string]string{"b/cm.yaml": configMap("default", "cm")}),
		},
		{
			// Client.Update compares the live annotation with "keep" exactly.
			name: "chart to a Kustomization with helm.sh/resource-policy: Keep (not exactly keep) at base",
			base: merge(tiers(false), hrA, chart("app", merge(other, map[string]string{"templates/cm.yaml": withAnnotation(configMap("", "cm"), "helm.sh/resource-policy", "Keep")}))),
			head: merge(tiers(false), hrA, chart("app", other), map[string]string{"b/cm.yaml": configMap("default", "cm")}),
			want: []want{{Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a", Object: "ConfigMap/default/cm", File: "b/cm.yaml", Line: 2}},
		},
		{
			name: "negative: chart to a Kustomization while the HelmRelease is suspended at head",
			base: merge(tiers(false), hrA, chart("app", merge(other, cmTpl))),
			head: merge(tiers(false), map[string]string{"a/hr.yaml": helmRelease("default", "app", "app", "suspend: true")}, chart("app", other), map[string]string{"b/cm.yaml": configMap("default", "cm")}),
		},
		{
			name: "chart to chart",
			base: merge(tiers(false), hrA, map[string]string{"a/hr2.yaml": helmRelease("default", "two", "two")}, chart("app", merge(other, cmTpl)), chart("two", map[string]string{"templates/x.yaml": configMap("", "x")})),
			head: merge(tiers(false), hrA, map[string]string{"a/hr2.yaml": helmRelease("default", "two", "two")}, chart("app", other), chart("two", merge(cmTpl, map[string]string{"templates/x.yaml": configMap("", "x")}))),
			want: []want{{Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a", Object: "ConfigMap/default/cm", File: "a/hr2.yaml", Line: 2,
				Msg: []string{"moves from flux-system/a › HelmRelease default/app to flux-system/a › HelmRelease default/two"}}},
		},
		{
			// The HelmRelease object moves between unordered Kustomizations: a deleted
			// HelmRelease is an uninstall, helm-uninstall's finding (TestHelmUninstallMove);
			// its chart's objects do not move.
			name: "negative: the HelmRelease itself moves between Kustomizations",
			base: merge(tiers(true), hrA, chart("app", cmTpl)),
			head: merge(tiers(true), hrB, chart("app", cmTpl)),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderBuilt(t, tc.base, tc.head)
			checkFindings(t, changeRule(t, "prune-transient")(base, head, testEnv()), tc.want)
		})
	}
}

// TestMovesHelm: an object moving between a Kustomization's manifests and a chart of a
// HelmRelease in the same Kustomization is a move; a chart's objects do not move when the
// HelmRelease moves to another Kustomization.
func TestMovesHelm(t *testing.T) {
	tiers := map[string]string{tierFile("a"): tier("a", "./a", true), tierFile("b"): tier("b", "./b", true),
		"a/keep.yaml": configMap("default", "keep-a"), "b/keep.yaml": configMap("default", "keep-b")}
	cm := map[string]string{"templates/cm.yaml": configMap("", "cm")}
	other := map[string]string{"templates/other.yaml": configMap("", "other")}
	base := renderTree(t, merge(tiers, chart("app", other), map[string]string{"a/hr.yaml": helmRelease("default", "app", "app"), "a/cm.yaml": configMap("default", "cm")}))
	head := renderTree(t, merge(tiers, chart("app", merge(other, cm)), map[string]string{"b/hr.yaml": helmRelease("default", "app", "app")}))
	var got []Move
	for _, m := range Moves(base, head) {
		m.base, m.head = nil, nil
		got = append(got, m)
	}
	wantMoves := []Move{
		{Cluster: "dev", Object: hrID("default/app"), From: "flux-system/a", To: "flux-system/b"},
		{Cluster: "dev", Object: cmID("default", "cm"), From: "flux-system/a", To: "flux-system/b", ToHelmRelease: "default/app"},
	}
	if len(got) != len(wantMoves) {
		t.Fatalf("moves = %+v, want %+v", got, wantMoves)
	}
	for i := range got {
		if got[i] != wantMoves[i] {
			t.Errorf("move %d = %+v, want %+v", i, got[i], wantMoves[i])
		}
	}
}
