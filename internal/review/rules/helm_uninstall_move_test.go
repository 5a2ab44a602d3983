package rules

import (
	"strings"
	"testing"
)

// TestHelmUninstallMove: a HelmRelease whose old Kustomization garbage-collects it on its
// way to another one (moved, or renamed through the Kustomization's targetNamespace) is
// deleted, so helm-controller's finalizer uninstalls its release and the new HelmRelease
// installs it again from nothing: one helm-uninstall finding per HelmRelease, consistent
// with a removed one, and no prune-transient for it or for its chart's objects (they are
// the release's, not in Flux's inventory). A move ordered safely, or a HelmRelease excluded
// from pruning, is none.
func TestHelmUninstallMove(t *testing.T) {
	cm := chart("app", map[string]string{"templates/cm.yaml": configMap("", "cm")})
	hrA := map[string]string{"a/hr.yaml": helmRelease("default", "app", "app")}
	hrB := map[string]string{"b/hr.yaml": helmRelease("default", "app", "app")}
	tiers := func(aSpec, bSpec []string) map[string]string {
		return map[string]string{
			tierFile("a"): tier("a", "./a", true, aSpec...), "a/keep.yaml": configMap("default", "keep-a"),
			tierFile("b"): tier("b", "./b", true, bSpec...), "b/keep.yaml": configMap("default", "keep-b"),
		}
	}
	const moveSugg = "Merge the move in two steps: first add the annotation `kustomize.toolkit.fluxcd.io/prune: disabled` to HelmRelease.helm.toolkit.fluxcd.io/default/app in a/hr.yaml and let Flux apply it, then move it (and drop the annotation later). " +
		"Or set `prune: false` on Kustomization flux-system/a, merge, move the object, then restore `prune: true`."
	cases := []struct {
		name       string
		base, head map[string]string
		want       []want
		transient  []want
		msg, sugg  string
	}{
		{
			name: "moved to a Kustomization that dependsOn the old one: certain",
			base: merge(tiers(nil, dependsOn("a")), hrA, cm),
			head: merge(tiers(nil, dependsOn("a")), hrB, cm),
			want: []want{{Rule: "helm-uninstall", Severity: Warning, Kustomization: "flux-system/a", Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "b/hr.yaml", Line: 2}},
			msg: "HelmRelease.helm.toolkit.fluxcd.io/default/app moves from flux-system/a to flux-system/b, and flux-system/a garbage-collects it on the way: flux-system/b has a dependsOn path to flux-system/a, so flux-system/a always prunes first (certain). " +
				"Deleting the HelmRelease makes helm-controller's finalizer uninstall release default/app, which the HelmRelease applied by flux-system/b then installs again from nothing: the uninstall deletes 1 object(s) of the release (ConfigMap/default/cm).",
			sugg: moveSugg,
		},
		{
			name: "moved between unordered Kustomizations: a race",
			base: merge(tiers(nil, nil), hrA, cm),
			head: merge(tiers(nil, nil), hrB, cm),
			want: []want{{Rule: "helm-uninstall", Severity: Warning, Kustomization: "flux-system/a", Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "b/hr.yaml", Line: 2}},
			msg: "HelmRelease.helm.toolkit.fluxcd.io/default/app moves from flux-system/a to flux-system/b, and flux-system/a garbage-collects it on the way: neither flux-system/a nor flux-system/b depends on the other, so whichever reconciles first wins (a race). " +
				"Deleting the HelmRelease makes helm-controller's finalizer uninstall release default/app, which the HelmRelease applied by flux-system/b then installs again from nothing: the uninstall deletes 1 object(s) of the release (ConfigMap/default/cm).",
			sugg: moveSugg,
		},
		{
			name: "renamed through the Kustomization's targetNamespace",
			base: merge(tiers(nil, nil), hrA, cm, map[string]string{"a/plain.yaml": configMap("default", "plain")}),
			head: merge(tiers([]string{"targetNamespace: apps"}, nil), hrA, cm, map[string]string{"a/plain.yaml": configMap("default", "plain")}),
			// Every finding is on the added targetNamespace: line (clusters/dev/a.yaml:13), the
			// change; the untouched objects' files are named in the messages.
			want: []want{{Rule: "helm-uninstall", Severity: Warning, Kustomization: "flux-system/a", Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "clusters/dev/a.yaml", Line: 13}},
			transient: []want{
				{Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a", Object: "ConfigMap/apps/keep-a", File: "clusters/dev/a.yaml", Line: 13},
				{Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a", Object: "ConfigMap/apps/plain", File: "clusters/dev/a.yaml", Line: 13},
			},
			msg: "HelmRelease.helm.toolkit.fluxcd.io/default/app (a/hr.yaml:2) becomes HelmRelease.helm.toolkit.fluxcd.io/apps/app because spec.targetNamespace of flux-system/a changes (unset → apps): Flux applies the new HelmRelease and prunes the old one, so helm-controller's finalizer uninstalls release default/app, and HelmRelease apps/app installs release apps/app from nothing: " +
				"the uninstall deletes 1 object(s) of the release (ConfigMap/default/cm).",
			sugg: "Merge in two steps: first add the annotation `helm.sh/resource-policy: keep` to the objects that must survive through the chart of HelmRelease default/app",
		},
		{
			name: "negative: the old Kustomization dependsOn the new one (safe)",
			base: merge(tiers(dependsOn("b"), nil), hrA, cm),
			head: merge(tiers(dependsOn("b"), nil), hrB, cm),
		},
		{
			name: "negative: excluded from pruning at base",
			base: merge(tiers(nil, nil), map[string]string{"a/hr.yaml": withAnnotation(helmRelease("default", "app", "app"), "kustomize.toolkit.fluxcd.io/prune", "disabled")}, cm),
			head: merge(tiers(nil, nil), hrB, cm),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderBuilt(t, tc.base, tc.head)
			checkFindings(t, changeRule(t, "prune-transient")(base, head, testEnv()), tc.transient)
			got := changeRule(t, "helm-uninstall")(base, head, testEnv())
			checkFindings(t, got, tc.want)
			if len(got) == 1 && (got[0].Message != tc.msg || !strings.HasPrefix(got[0].Suggestion, tc.sugg)) {
				t.Errorf("got\n%s\n%s\nwant\n%s\n%s", got[0].Message, got[0].Suggestion, tc.msg, tc.sugg)
			}
		})
	}
}

// TestHelmUninstallAtPatch: a release name set by a kustomize patch of kustomization.yaml
// (or by the Flux Kustomization's spec.patches) is located at the patch line that sets it,
// the line the PR changes, not at the unchanged HelmRelease manifest.
func TestHelmUninstallAtPatch(t *testing.T) {
	cm := chart("app", map[string]string{"templates/cm.yaml": configMap("", "cm")})
	hr := map[string]string{"a/hr.yaml": helmRelease("default", "app", "app"), "a/keep.yaml": configMap("default", "keep-a")}
	const kz = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - hr.yaml\n  - keep.yaml\n"
	const patch = "patches:\n  - target:\n      kind: HelmRelease\n      name: app\n    patch: |\n      - op: add\n        path: /spec/releaseName\n        value: app2\n"
	const msg = "the release target of HelmRelease.helm.toolkit.fluxcd.io/default/app changes (release name app → app2), so helm-controller uninstalls release default/app before it installs the new one: the uninstall deletes 1 object(s) of the release (ConfigMap/default/cm)."
	for _, tc := range []struct {
		name       string
		base, head map[string]string
		file       string
		line       int
	}{
		{"patch in kustomization.yaml", map[string]string{tierFile("a"): tier("a", "./a", true), "a/kustomization.yaml": kz},
			map[string]string{tierFile("a"): tier("a", "./a", true), "a/kustomization.yaml": kz + patch}, "a/kustomization.yaml", 12},
		{"patch file named by kustomization.yaml", map[string]string{tierFile("a"): tier("a", "./a", true), "a/kustomization.yaml": kz},
			map[string]string{tierFile("a"): tier("a", "./a", true), "a/kustomization.yaml": kz + "patches:\n  - path: release-patch.yaml\n    target: {kind: HelmRelease, name: app}\n",
				"a/release-patch.yaml": "- op: add\n  path: /spec/releaseName\n  value: app2\n"}, "a/release-patch.yaml", 2},
		{"patch in the Flux Kustomization's spec.patches", map[string]string{tierFile("a"): tier("a", "./a", true)},
			map[string]string{tierFile("a"): tier("a", "./a", true, strings.Split(strings.TrimSuffix(patch, "\n"), "\n")...)}, tierFile("a"), 19},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, head := renderTree(t, merge(tc.base, hr, cm)), renderTree(t, merge(tc.head, hr, cm))
			checkBuilt(t, base)
			checkBuilt(t, head)
			got := changeRule(t, "helm-uninstall")(base, head, testEnv())
			checkFindings(t, got, []want{{Rule: "helm-uninstall", Severity: Warning, Kustomization: "flux-system/a", Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: tc.file, Line: tc.line, Msg: []string{msg}}})
			if got[0].Message != msg {
				t.Errorf("message %q, want %q", got[0].Message, msg)
			}
		})
	}
}
