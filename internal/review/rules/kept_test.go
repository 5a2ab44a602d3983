package rules

import "testing"

// TestKeptChild: a Kustomization removed from a parent that does not prune (or annotated
// kustomize.toolkit.fluxcd.io/prune: disabled) stays and keeps applying its folder
// (thaum-xyz/ankhmorpork#1366): renaming it is a duplicate-owner fight, not a
// prune-transient, and removing it with its folder deletes nothing.
func TestKeptChild(t *testing.T) {
	parent := func(prune bool, child string) map[string]string {
		return map[string]string{tierFile("p"): tier("p", "./p", prune), "p/keep.yaml": configMap("default", "keep-p"), "p/child.yaml": child}
	}
	apps := map[string]string{"apps/cm.yaml": configMap("default", "cm")}
	old, renamed := tier("apps", "./apps", true), tier("apps-v2", "./apps", true)
	fight := []want{{Rule: "duplicate-owner", Severity: Error, Kustomization: "flux-system/apps", Object: "ConfigMap/default/cm", File: "apps/cm.yaml", Line: 2,
		Msg:  []string{"ConfigMap/default/cm moves from flux-system/apps to flux-system/apps-v2, but", "it keeps applying ConfigMap/default/cm from path ./apps (now apps/cm.yaml:2) as flux-system/apps-v2 does"},
		Sugg: []string{"flux suspend kustomization apps -n flux-system"}}}
	cases := []struct {
		name       string
		base, head map[string]string
		rule       string
		want       []want
	}{
		{
			name: "rename under a parent without prune: a fight",
			base: merge(parent(false, old), apps), head: merge(parent(false, renamed), apps), rule: "prune-transient",
			want: []want{withMsg(fight[0], "its parent flux-system/p does not prune, so Kustomization flux-system/apps stays in the cluster")},
		},
		{
			name: "rename of a child annotated prune: disabled: a fight",
			base: merge(parent(true, withAnnotation(old, "kustomize.toolkit.fluxcd.io/prune", "disabled")), apps), head: merge(parent(true, renamed), apps), rule: "prune-transient",
			want: []want{withMsg(fight[0], "Kustomization flux-system/apps is excluded from flux-system/p's garbage collection")},
		},
		{
			name: "negative: rename under a pruning parent is a prune-transient",
			base: merge(parent(true, old), apps), head: merge(parent(true, renamed), apps), rule: "prune-transient",
			want: []want{{Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/apps", Object: "ConfigMap/default/cm", File: "apps/cm.yaml", Line: 2,
				Msg: []string{"flux-system/apps is deleted or renamed at head"}}},
		},
		{
			// The kept Kustomization still builds ./apps (keep.yaml stays) and prunes the
			// ConfigMap that moved to tier b: a race with b, not a fight.
			name: "moved elsewhere out of a kept Kustomization whose folder stays: a race",
			base: merge(parent(false, old), apps, map[string]string{"apps/keep.yaml": configMap("default", "keep-apps"), tierFile("b"): tier("b", "./b", true)}, map[string]string{"b/keep.yaml": configMap("default", "keep-b")}),
			head: merge(parent(false, configMap("default", "other")), map[string]string{"apps/keep.yaml": configMap("default", "keep-apps"), tierFile("b"): tier("b", "./b", true),
				"b/keep.yaml": configMap("default", "keep-b"), "b/cm.yaml": configMap("default", "cm")}),
			rule: "prune-transient",
			want: []want{{Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/apps", Object: "ConfigMap/default/cm", File: "b/cm.yaml", Line: 2,
				Msg: []string{"its parent flux-system/p does not prune, so Kustomization flux-system/apps stays in the cluster; it keeps reconciling its last spec and prunes what left its folder, while flux-system/b may not have applied it yet (a race)"}}},
		},
		{
			name: "negative: moved elsewhere out of a kept Kustomization whose folder is gone",
			base: merge(parent(false, old), apps, map[string]string{tierFile("b"): tier("b", "./b", true), "b/keep.yaml": configMap("default", "keep-b")}),
			head: merge(parent(false, configMap("default", "other")), map[string]string{tierFile("b"): tier("b", "./b", true),
				"b/keep.yaml": configMap("default", "keep-b"), "b/cm.yaml": configMap("default", "cm")}),
			rule: "prune-transient",
		},
		{
			name: "removed with its folder under a parent without prune: nothing deleted",
			base: merge(parent(false, old), map[string]string{"apps/pvc.yaml": pvc("default", "data", "")}),
			head: parent(false, configMap("default", "other")), rule: "destructive-prune",
		},
		{
			name: "negative: removed with its folder under a pruning parent",
			base: merge(parent(true, old), map[string]string{"apps/pvc.yaml": pvc("default", "data", "")}),
			head: parent(true, configMap("default", "other")), rule: "destructive-prune",
			want: []want{{Rule: "destructive-prune", Severity: Error, Kustomization: "flux-system/apps", Object: "PersistentVolumeClaim/default/data", File: "apps/pvc.yaml", Line: 2}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderBuilt(t, tc.base, tc.head)
			checkFindings(t, changeRule(t, tc.rule)(base, head, testEnv()), tc.want)
		})
	}
}

func withMsg(w want, msg ...string) want {
	w.Msg = append(append([]string(nil), w.Msg...), msg...)
	return w
}
