package rules

import "testing"

func TestPruneTransient(t *testing.T) {
	keep := map[string]string{
		"a/keep.yaml": configMap("default", "keep-a"),
		"b/keep.yaml": configMap("default", "keep-b"),
		"c/keep.yaml": configMap("default", "keep-c"),
	}
	// abc returns three sibling tiers; deps maps a tier to the spec lines it gets.
	abc := func(deps map[string][]string) map[string]string {
		out := map[string]string{}
		for _, n := range []string{"a", "b", "c"} {
			out[tierFile(n)] = tier(n, "./"+n, true, deps[n]...)
		}
		return merge(keep, out)
	}
	inA := map[string]string{"a/cm.yaml": configMap("default", "cm")}
	inB := map[string]string{"b/cm.yaml": configMap("default", "cm")}
	// A parent tier p (a child of the root) that applies Kustomization child.
	nested := map[string]string{
		tierFile("p"):     tier("p", "./p", true),
		"p/child.yaml":    tier("child", "./child", true),
		"p/keep.yaml":     configMap("default", "keep-p"),
		"child/keep.yaml": configMap("default", "keep-child"),
	}
	suggestion := []string{"kustomize.toolkit.fluxcd.io/prune: disabled", "set `prune: false` on Kustomization flux-system/a"}
	moved := func(sev Severity, msg ...string) []want {
		return []want{{
			Rule: "prune-transient", Severity: sev, Kustomization: "flux-system/a",
			Object: "ConfigMap/default/cm", File: "b/cm.yaml", Line: 2, Msg: msg, Sugg: suggestion,
		}}
	}
	cases := []struct {
		name       string
		base, head map[string]string
		bug        string
		broken     []string // head Kustomizations expected to fail
		want       []want
	}{
		{
			// The API server rejects Kustomization bad, so a applies and prunes nothing.
			name:   "old owner fails at head: it prunes nothing",
			base:   merge(abc(nil), inA),
			head:   merge(abc(nil), inB, map[string]string{"a/bad.yaml": tier("bad", "./c", true, "dependsOn: a")}),
			broken: []string{"a"},
		},
		{
			// b applies nothing, so nothing moves: a prunes the ConfigMap for good (not
			// critical, so no destructive-prune either; the render-error of b says it).
			name:   "new owner fails at head: no move",
			base:   merge(abc(map[string][]string{"b": dependsOn("a")}), inA),
			head:   merge(abc(map[string][]string{"b": dependsOn("a")}), inB, map[string]string{"b/bad.yaml": tier("bad", "./c", true, "dependsOn: b")}),
			broken: []string{"b"},
		},
		{
			name: "certain: new owner dependsOn old owner",
			base: merge(abc(map[string][]string{"b": dependsOn("a")}), inA),
			head: merge(abc(map[string][]string{"b": dependsOn("a")}), inB),
			want: moved(Warning, "ConfigMap/default/cm leaves flux-system/a, which has prune enabled",
				"flux-system/b has a dependsOn path to flux-system/a", "(certain)"),
		},
		{
			name: "certain: new owner reaches old owner through a third tier",
			base: merge(abc(map[string][]string{"b": dependsOn("c"), "c": dependsOn("a")}), inA),
			head: merge(abc(map[string][]string{"b": dependsOn("c"), "c": dependsOn("a")}), inB),
			want: moved(Warning, "flux-system/b has a dependsOn path to flux-system/a", "(certain)"),
		},
		{
			name: "race: no edge between the owners",
			base: merge(abc(nil), inA),
			head: merge(abc(nil), inB),
			want: moved(Warning, "neither flux-system/a nor flux-system/b depends on the other", "(a race)"),
		},
		{
			name: "race: old owner deleted",
			base: merge(abc(nil), inA),
			head: func() map[string]string {
				m := merge(abc(nil), inB)
				delete(m, tierFile("a"))
				delete(m, "a/keep.yaml")
				return m
			}(),
			want: moved(Warning, "flux-system/a is deleted or renamed at head", "(a race)"),
		},
		{
			name: "race: old owner renamed",
			base: merge(abc(nil), inA),
			head: func() map[string]string {
				m := merge(abc(nil), inA)
				m[tierFile("a")] = tier("a-v2", "./a", true)
				return m
			}(),
			want: []want{{
				Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a",
				Object: "ConfigMap/default/cm", File: "a/cm.yaml", Line: 2,
				Msg: []string{"flux-system/a is deleted or renamed at head", "flux-system/a-v2 may not have applied yet"}, Sugg: suggestion,
			}, {
				Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a",
				Object: "ConfigMap/default/keep-a", File: "a/keep.yaml", Line: 2,
				Msg: []string{"flux-system/a is deleted or renamed at head"}, Sugg: suggestion,
			}},
		},
		{
			name: "safe: old owner dependsOn new owner",
			base: merge(abc(map[string][]string{"a": dependsOn("b")}), inA),
			head: merge(abc(map[string][]string{"a": dependsOn("b")}), inB),
		},
		{
			name: "safe: old owner reaches new owner through a third tier",
			base: merge(abc(map[string][]string{"a": dependsOn("c"), "c": dependsOn("b")}), inA),
			head: merge(abc(map[string][]string{"a": dependsOn("c"), "c": dependsOn("b")}), inB),
		},
		{
			name: "safe: object moves up into the parent",
			base: merge(nested, map[string]string{"child/cm.yaml": configMap("default", "cm")}),
			head: merge(nested, map[string]string{"p/cm.yaml": configMap("default", "cm")}),
		},
		{
			name: "safe: old owner deleted and object moves up into its parent",
			base: merge(nested, map[string]string{"child/cm.yaml": configMap("default", "cm")}),
			head: func() map[string]string {
				m := merge(nested, map[string]string{"p/cm.yaml": configMap("default", "cm")})
				delete(m, "p/child.yaml")
				return m
			}(),
		},
		{
			name: "certain: object moves down into a child",
			base: merge(nested, map[string]string{"p/cm.yaml": configMap("default", "cm")}),
			head: merge(nested, map[string]string{"child/cm.yaml": configMap("default", "cm")}),
			want: []want{{
				Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/p",
				Object: "ConfigMap/default/cm", File: "child/cm.yaml", Line: 2,
				Msg:  []string{"flux-system/child is a descendant of flux-system/p", "(certain)"},
				Sugg: []string{"set `prune: false` on Kustomization flux-system/p"},
			}},
		},
		{
			name: "skipped: old owner has prune false",
			base: merge(abc(nil), inA, map[string]string{tierFile("a"): tier("a", "./a", false)}),
			head: merge(abc(nil), inB, map[string]string{tierFile("a"): tier("a", "./a", false)}),
		},
		{
			name: "skipped: deleted old owner with deletionPolicy Orphan",
			base: merge(abc(nil), inA, map[string]string{tierFile("a"): tier("a", "./a", true, "deletionPolicy: Orphan")}),
			head: func() map[string]string {
				m := merge(abc(nil), inB)
				delete(m, tierFile("a"))
				return m
			}(),
		},
		{
			name: "skipped: base object annotated prune Disabled",
			base: merge(abc(nil), map[string]string{"a/cm.yaml": configMap("default", "cm",
				"  annotations:", "    kustomize.toolkit.fluxcd.io/prune: Disabled", "data:", "  key: value")}),
			head: merge(abc(nil), inB),
		},
		{
			name: "annotation only at head does not protect",
			base: merge(abc(nil), inA),
			head: merge(abc(nil), map[string]string{"b/cm.yaml": configMap("default", "cm",
				"  annotations:", "    kustomize.toolkit.fluxcd.io/prune: disabled", "data:", "  key: value")}),
			want: moved(Warning, "(a race)"),
		},
		{
			name: "error for a PersistentVolumeClaim",
			base: merge(abc(nil), map[string]string{"a/pvc.yaml": pvc("default", "data", "")}),
			head: merge(abc(nil), map[string]string{"b/pvc.yaml": pvc("default", "data", "")}),
			want: []want{{
				Rule: "prune-transient", Severity: Error, Kustomization: "flux-system/a",
				Object: "PersistentVolumeClaim/default/data", File: "b/pvc.yaml", Line: 2,
				Msg: []string{"(a race)"}, Sugg: suggestion,
			}},
		},
		{
			name: "identity change through targetNamespace",
			base: merge(abc(nil), map[string]string{
				tierFile("a"): tier("a", "./a", true, "targetNamespace: one"),
				"a/cm.yaml":   configMap("", "cm"),
			}),
			head: merge(abc(nil), map[string]string{
				tierFile("a"): tier("a", "./a", true, "targetNamespace: two"),
				"a/cm.yaml":   configMap("", "cm"),
			}),
			want: []want{
				{
					Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a",
					Object: "ConfigMap/two/cm", File: "clusters/dev/a.yaml", Line: 13, // the changed targetNamespace: line, not the untouched object
					Msg: []string{"ConfigMap/one/cm (a/cm.yaml:2) becomes ConfigMap/two/cm because spec.targetNamespace of flux-system/a changes (one → two): Flux creates ConfigMap/two/cm from git and prunes ConfigMap/one/cm: it comes back with its git content; lost is only what the cluster alone had: its status, changes made in the cluster, and objects that name it as their owner (Kubernetes' garbage collector deletes them)."}, Sugg: suggestion,
				},
				{
					Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a",
					Object: "ConfigMap/two/keep-a", File: "clusters/dev/a.yaml", Line: 13,
					Msg: []string{"ConfigMap/one/keep-a (a/keep.yaml:2) becomes ConfigMap/two/keep-a"}, Sugg: suggestion,
				},
			},
		},
		{
			name: "identity change of a PVC through targetNamespace is an error",
			base: merge(abc(nil), map[string]string{
				tierFile("c"): tier("c", "./c", true, "targetNamespace: one"),
				"c/pvc.yaml":  pvc("", "data", ""),
			}),
			head: merge(abc(nil), map[string]string{
				tierFile("c"): tier("c", "./c", true, "targetNamespace: two"),
				"c/pvc.yaml":  pvc("", "data", ""),
			}),
			want: []want{
				{
					Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/c",
					Object: "ConfigMap/two/keep-c", File: "clusters/dev/c.yaml", Line: 13,
				},
				{
					Rule: "prune-transient", Severity: Error, Kustomization: "flux-system/c",
					Object: "PersistentVolumeClaim/two/data", File: "clusters/dev/c.yaml", Line: 13,
					Msg:  []string{"PersistentVolumeClaim/one/data (c/pvc.yaml:2) becomes PersistentVolumeClaim/two/data"},
					Sugg: []string{"set `prune: false` on Kustomization flux-system/c"},
				},
			},
		},
		{
			name: "new owner applies with ssa IfNotPresent: old owner still prunes",
			base: merge(abc(map[string][]string{"a": dependsOn("b")}), inA),
			head: merge(abc(map[string][]string{"a": dependsOn("b")}), map[string]string{"b/cm.yaml": configMap("default", "cm",
				"  annotations:", "    kustomize.toolkit.fluxcd.io/ssa: IfNotPresent", "data:", "  key: value")}),
			want: moved(Warning),
		},
		{
			name: "no finding without a move",
			base: merge(abc(map[string][]string{"b": dependsOn("a")}), inA),
			head: merge(abc(map[string][]string{"b": dependsOn("a")}), inA),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.bug != "" {
				t.Skip("BUG: " + tc.bug)
			}
			base, head := renderTree(t, tc.base), renderTree(t, tc.head)
			checkBuilt(t, base)
			checkBuilt(t, head, tc.broken...)
			checkFindings(t, changeRule(t, "prune-transient")(base, head, testEnv()), tc.want)
		})
	}
}

// TestPruneTransientIdentityFieldLine: an identity change through namePrefix (the same kind
// as targetNamespace) is reported at the changed field's line, its first of the three fields
// that changes; a removed field at the Kustomization's spec: line; an object whose own file
// renames it is not this kind of finding at all.
func TestPruneTransientIdentityFieldLine(t *testing.T) {
	cm := map[string]string{"a/cm.yaml": configMap("default", "cm")}
	for _, tc := range []struct {
		name               string
		baseSpec, headSpec []string
		headCM             string
		want               []want
	}{
		{"namePrefix added", nil, []string{"namePrefix: p-"}, "", []want{{Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a",
			Object: "ConfigMap/default/p-cm", File: "clusters/dev/a.yaml", Line: 13,
			Msg: []string{"ConfigMap/default/cm (a/cm.yaml:2) becomes ConfigMap/default/p-cm because spec.namePrefix of flux-system/a changes (unset → p-): "}}}},
		{"targetNamespace removed", []string{"targetNamespace: one"}, nil, "", []want{{Rule: "prune-transient", Severity: Warning, Kustomization: "flux-system/a",
			Object: "ConfigMap/default/cm", File: "clusters/dev/a.yaml", Line: 6, // spec:
			Msg: []string{"ConfigMap/one/cm (a/cm.yaml:2) becomes ConfigMap/default/cm because spec.targetNamespace of flux-system/a changes (one → unset): "}}}},
		{"negative: the object's own file renames it", nil, nil, configMap("default", "cm2"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head := merge(cm, map[string]string{tierFile("a"): tier("a", "./a", true, tc.headSpec...)})
			if tc.headCM != "" {
				head["a/cm.yaml"] = tc.headCM
			}
			base, h := renderBuilt(t, merge(cm, map[string]string{tierFile("a"): tier("a", "./a", true, tc.baseSpec...)}), head)
			checkFindings(t, changeRule(t, "prune-transient")(base, h, testEnv()), tc.want)
		})
	}
}
