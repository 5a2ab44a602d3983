package rules

import (
	"strings"
	"testing"
)

// TestPruneFlipRace: a change that flips `prune` on a Kustomization and, in the same
// commit, removes or moves an object of it: the parent applies the new spec in its own
// reconcile, before or after the Kustomization reconciles the revision with its old spec
// (kustomize-controller prunes under the spec it reconciles with, and records the new
// inventory either way), so whether the object is deleted is a race. Every rule that reads
// the prune setting says so and advises merging the prune change first. The same removal
// under an unchanged `prune: false` is no finding.
func TestPruneFlipRace(t *testing.T) {
	cm := chart("app", map[string]string{"templates/cm.yaml": configMap("", "cm")})
	tiers := func(aPrune bool) map[string]string {
		return map[string]string{tierFile("a"): tier("a", "./a", aPrune), "a/keep.yaml": configMap("default", "keep-a"),
			tierFile("b"): tier("b", "./b", true), "b/keep.yaml": configMap("default", "keep-b")}
	}
	const offRace = " This change also sets `prune: false` on flux-system/a (it was `prune: true`), and its parent flux-system/flux-system applies that spec in its own reconcile, before or after flux-system/a reconciles this revision with its old spec: " +
		"whether flux-system/a garbage-collects it is a race (kustomize-controller prunes under the spec it reconciles with; with prune off it drops the object from its inventory and leaves it in the cluster)."
	const offFirst = "Merge `prune: false` on Kustomization flux-system/a first, in its own PR, and let Flux apply it; then the rest of this change, which then deletes nothing. "
	cases := []struct {
		name, rule string
		base, head map[string]string
		want       []want
		msg, sugg  string
	}{
		{
			name: "helm-uninstall: prune true to false and the HelmRelease removed", rule: "helm-uninstall",
			base: merge(tiers(true), cm, map[string]string{"a/hr.yaml": helmRelease("default", "app", "app")}),
			head: merge(tiers(false), cm),
			want: []want{{Rule: "helm-uninstall", Severity: Warning, Kustomization: "flux-system/a", Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "a/hr.yaml", Line: 2}},
			msg:  "HelmRelease.helm.toolkit.fluxcd.io/default/app is removed from flux-system/a, which garbage-collects it, so helm-controller's finalizer uninstalls release default/app: the uninstall deletes 1 object(s) of the release (ConfigMap/default/cm)." + offRace,
			sugg: offFirst + "Otherwise, merge in two steps: first add the annotation `helm.sh/resource-policy: keep`",
		},
		{
			name: "destructive-prune: prune true to false and a PersistentVolumeClaim removed", rule: "destructive-prune",
			base: merge(tiers(true), map[string]string{"a/pvc.yaml": pvc("default", "data", "")}),
			head: tiers(false),
			want: []want{{Rule: "destructive-prune", Severity: Error, Kustomization: "flux-system/a", Object: "PersistentVolumeClaim/default/data", File: "a/pvc.yaml", Line: 2}},
			msg:  "PersistentVolumeClaim/default/data is removed from flux-system/a, which garbage-collects it: Flux deletes it; under the usual Delete reclaim policy its volume and data go too." + offRace,
			sugg: offFirst + "Otherwise, if PersistentVolumeClaim/default/data must survive",
		},
		{
			name: "prune-transient: prune true to false and an object moved", rule: "prune-transient",
			base: merge(tiers(true), map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			head: merge(tiers(false), map[string]string{"b/cm.yaml": configMap("default", "cm")}),
			want: []want{{Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a", Object: "ConfigMap/default/cm", File: "b/cm.yaml", Line: 2}},
			msg:  moveRace("ConfigMap/default/cm", "neither flux-system/a nor flux-system/b depends on the other, so whichever reconciles first wins"),
			sugg: offFirst + "Otherwise, merge the move in two steps",
		},
		{
			// Under the old spec the order is certain; the flip alone makes it a race.
			name: "prune-transient: prune true to false and an object moved to a dependent", rule: "prune-transient",
			base: merge(tiers(true), map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			head: merge(tiers(false), map[string]string{"b/cm.yaml": configMap("default", "cm"), tierFile("b"): tier("b", "./b", true, dependsOn("a")...)}),
			want: []want{{Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a", Object: "ConfigMap/default/cm", File: "b/cm.yaml", Line: 2}},
			msg:  moveRace("ConfigMap/default/cm", "flux-system/b has a dependsOn path to flux-system/a, so flux-system/a always prunes first"),
			sugg: offFirst + "Otherwise, merge the move in two steps",
		},
		{
			// Here the new spec is the one that garbage-collects.
			name: "prune-transient: prune false to true and an object moved", rule: "prune-transient",
			base: merge(tiers(false), map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			head: merge(tiers(true), map[string]string{"b/cm.yaml": configMap("default", "cm")}),
			want: []want{{Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a", Object: "ConfigMap/default/cm", File: "b/cm.yaml", Line: 2}},
			msg: "ConfigMap/default/cm leaves flux-system/a, and this change also sets `prune: true` on flux-system/a (it was `prune: false`): whether flux-system/a deletes it is a race between the flip and the move. " +
				"Its parent flux-system/flux-system applies the new spec in its own reconcile, before or after flux-system/a reconciles this revision with its old spec, and kustomize-controller prunes under the spec it reconciles with. " +
				"Under `prune: true`, neither flux-system/a nor flux-system/b depends on the other, so whichever reconciles first wins: Flux deletes the object and re-creates it from git (new UID): it comes back with its git content; lost is only what the cluster alone had: its status, changes made in the cluster, and objects that name it as their owner (Kubernetes' garbage collector deletes them). " +
				"Under `prune: false`, flux-system/a drops it from its inventory and leaves it in the cluster, and flux-system/b takes it over.",
			sugg: "Merge `prune: true` on Kustomization flux-system/a first, in its own PR, and let Flux apply it; then the rest of this change, which then deletes it for certain. Otherwise, merge the move in two steps",
		},
		{
			name: "destructive-prune: prune false to true and a PersistentVolumeClaim removed", rule: "destructive-prune",
			base: merge(tiers(false), map[string]string{"a/pvc.yaml": pvc("default", "data", "")}),
			head: tiers(true),
			want: []want{{Rule: "destructive-prune", Severity: Error, Kustomization: "flux-system/a", Object: "PersistentVolumeClaim/default/data", File: "a/pvc.yaml", Line: 2}},
			msg: "PersistentVolumeClaim/default/data is removed from flux-system/a, which garbage-collects it: Flux deletes it; under the usual Delete reclaim policy its volume and data go too." +
				" This change also sets `prune: true` on flux-system/a (it was `prune: false`), and its parent flux-system/flux-system applies that spec in its own reconcile, before or after flux-system/a reconciles this revision with its old spec: " +
				"whether flux-system/a garbage-collects it is a race (kustomize-controller prunes under the spec it reconciles with; with prune off it drops the object from its inventory and leaves it in the cluster).",
			sugg: "Merge `prune: true` on Kustomization flux-system/a first, in its own PR, and let Flux apply it; then the rest of this change, which then deletes it for certain. Otherwise, if PersistentVolumeClaim/default/data must survive",
		},
		{
			// The parent flips: whether it deletes Kustomization a, whose finalizer
			// uninstalls nothing but garbage-collects a's inventory, is the race.
			name: "destructive-prune: the parent's prune flips and removes the Kustomization", rule: "destructive-prune",
			base: map[string]string{tierFile("p"): tier("p", "./p", true), "p/a.yaml": tier("a", "./a", true), "a/pvc.yaml": pvc("default", "data", "")},
			head: map[string]string{tierFile("p"): tier("p", "./p", false), "p/keep.yaml": configMap("default", "keep-p"), "a/pvc.yaml": pvc("default", "data", "")},
			want: []want{{Rule: "destructive-prune", Severity: Error, Kustomization: "flux-system/a", Object: "PersistentVolumeClaim/default/data", File: "a/pvc.yaml", Line: 2}},
			msg: "PersistentVolumeClaim/default/data is removed from flux-system/a, which garbage-collects it: Flux deletes it; under the usual Delete reclaim policy its volume and data go too." +
				" This change also sets `prune: false` on flux-system/p (it was `prune: true`), and its parent flux-system/flux-system applies that spec in its own reconcile, before or after flux-system/p reconciles this revision with its old spec: " +
				"whether flux-system/p garbage-collects Kustomization flux-system/a (whose finalizer then garbage-collects its inventory) is a race (kustomize-controller prunes under the spec it reconciles with; with prune off it drops the object from its inventory and leaves it in the cluster).",
			sugg: "Merge `prune: false` on Kustomization flux-system/p first, in its own PR, and let Flux apply it; then the rest of this change, which then deletes nothing. Otherwise, if PersistentVolumeClaim/default/data must survive",
		},
		{
			name: "negative: prune false at both commits", rule: "helm-uninstall",
			base: merge(tiers(false), cm, map[string]string{"a/hr.yaml": helmRelease("default", "app", "app")}),
			head: merge(tiers(false), cm),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderTree(t, tc.base), renderTree(t, tc.head)
			got := changeRule(t, tc.rule)(base, head, testEnv())
			checkFindings(t, got, tc.want)
			if len(got) == 1 && (got[0].Message != tc.msg || !strings.HasPrefix(got[0].Suggestion, tc.sugg)) {
				t.Errorf("got\n%s\n%s\nwant\n%s\n%s", got[0].Message, got[0].Suggestion, tc.msg, tc.sugg)
			}
		})
	}
}

// moveRace is prune-transient's message for obj moved from flux-system/a, whose prune this
// change flips from true to false, to flux-system/b; order says what happens under prune.
func moveRace(obj, order string) string {
	return obj + " leaves flux-system/a, and this change also sets `prune: false` on flux-system/a (it was `prune: true`): whether flux-system/a deletes it is a race between the flip and the move. " +
		"Its parent flux-system/flux-system applies the new spec in its own reconcile, before or after flux-system/a reconciles this revision with its old spec, and kustomize-controller prunes under the spec it reconciles with. " +
		"Under `prune: true`, " + order + ": Flux deletes the object and re-creates it from git (new UID): it comes back with its git content; lost is only what the cluster alone had: its status, changes made in the cluster, and objects that name it as their owner (Kubernetes' garbage collector deletes them). " +
		"Under `prune: false`, flux-system/a drops it from its inventory and leaves it in the cluster, and flux-system/b takes it over."
}
