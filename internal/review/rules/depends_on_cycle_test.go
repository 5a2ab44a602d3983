package rules

import (
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// sharedSourceCycle is what a cycle of Kustomizations on one source does (kustomize-controller
// checkDependencies also compares the dependency's lastAppliedRevision).
const sharedSourceCycle = "on a new cluster none of these Kustomizations is ever applied; on a running cluster they keep what they applied, " +
	"but at the next revision of their source each waits for the others to apply it first ('revision is not up to date'), so none applies it or becomes Ready again."

func TestDependsOnCycle(t *testing.T) {
	// tiers returns one tier per name, each depending on deps[name].
	tiers := func(deps map[string][]string, names ...string) map[string]string {
		out := map[string]string{}
		for _, n := range names {
			var spec []string
			if len(deps[n]) > 0 {
				spec = dependsOn(deps[n]...)
			}
			out[tierFile(n)] = tier(n, "./"+n, true, spec...)
			out[n+"/cm.yaml"] = configMap("default", n)
		}
		return out
	}
	cycle := func(first, text string) want {
		return want{
			Rule: "depends-on-cycle", Severity: Error, Kustomization: "flux-system/" + first,
			File: tierFile(first), Line: 14, // the `- name:` entry of the cycle's first edge
			Msg:  []string{"dependsOn cycle " + text + ": " + sharedSourceCycle},
			Sugg: []string{"Remove one dependsOn edge of the cycle"},
		}
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{
			name:  "two tiers",
			files: tiers(map[string][]string{"a": {"b"}, "b": {"a"}}, "a", "b"),
			want:  []want{cycle("a", "flux-system/a -> flux-system/b -> flux-system/a")},
		},
		{
			name:  "self loop",
			files: tiers(map[string][]string{"a": {"a"}}, "a", "b"),
			want:  []want{cycle("a", "flux-system/a -> flux-system/a")},
		},
		{
			name:  "three tiers",
			files: tiers(map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"a"}}, "a", "b", "c"),
			want:  []want{cycle("a", "flux-system/a -> flux-system/b -> flux-system/c -> flux-system/a")},
		},
		{
			name:  "three tiers along dependsOn edges",
			files: tiers(map[string][]string{"a": {"c"}, "c": {"b"}, "b": {"a"}}, "a", "b", "c"),
			want:  []want{cycle("a", "flux-system/a -> flux-system/c -> flux-system/b -> flux-system/a")},
		},
		{
			name:  "a tier outside the cycle depends on it",
			files: tiers(map[string][]string{"b": {"c"}, "c": {"b"}, "a": {"b"}, "d": {"a"}}, "a", "b", "c", "d"),
			want:  []want{cycle("b", "flux-system/b -> flux-system/c -> flux-system/b")},
		},
		{
			name:  "two separate cycles",
			files: tiers(map[string][]string{"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}}, "a", "b", "c", "d"),
			want: []want{
				cycle("a", "flux-system/a -> flux-system/b -> flux-system/a"),
				cycle("c", "flux-system/c -> flux-system/d -> flux-system/c"),
			},
		},
		{
			name:  "two loops through one tier",
			files: tiers(map[string][]string{"a": {"b", "c"}, "b": {"a"}, "c": {"a"}}, "a", "b", "c"),
			want: []want{{
				Rule: "depends-on-cycle", Severity: Error, Kustomization: "flux-system/a",
				File: tierFile("a"), Line: 14,
				Msg: []string{"dependsOn cycles among flux-system/a, flux-system/b, flux-system/c (one is flux-system/a -> flux-system/b -> flux-system/a)"},
			}},
		},
		{
			name:  "DAG",
			files: tiers(map[string][]string{"a": {"b", "c"}, "b": {"c"}, "d": {"a", "c"}}, "a", "b", "c", "d"),
		},
		{
			name:  "dependency not found is no cycle",
			files: tiers(map[string][]string{"a": {"x"}}, "a"),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "depends-on-cycle")(c, nil, testEnv()), tc.want)
		})
	}
}

// TestDependsOnWaitingAncestor: a child that dependsOn a parent waiting for it deadlocks;
// without the wait, or on a parent that does not wait, it does not.
func TestDependsOnWaitingAncestor(t *testing.T) {
	files := func(parentSpec ...string) map[string]string {
		return map[string]string{
			tierFile("platform"):          tier("platform", "./platform", true, parentSpec...),
			"platform/child.yaml":         tier("child", "./child", true, dependsOn("platform")...),
			"platform/kustomization.yaml": "resources: [child.yaml]\n",
			"child/cm.yaml":               configMap("default", "x"),
		}
	}
	found := want{
		Rule: "depends-on-cycle", Severity: Error, Kustomization: "flux-system/child", File: "platform/child.yaml", Line: 14,
		Msg: []string{"flux-system/child dependsOn its ancestor flux-system/platform, which waits for it to become Ready (wait: true or a healthCheck): " +
			"on a new cluster neither becomes Ready; on a running cluster they keep what they applied, but at the next revision of their source the ancestor waits for the child, " +
			"and the child for the ancestor to apply it first, so neither becomes Ready again."},
		Sugg: []string{"Remove `- name: platform` from spec.dependsOn of flux-system/child"},
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{name: "wait true", files: files("wait: true"), want: []want{found}},
		{name: "healthCheck naming the child", files: files("healthChecks:", "  - {apiVersion: kustomize.toolkit.fluxcd.io/v1, kind: Kustomization, name: child}"), want: []want{found}},
		{name: "parent does not wait", files: files()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "depends-on-cycle")(c, nil, testEnv()), tc.want)
		})
	}
}

func TestDependsOnCycleNamesTheAddedEdge(t *testing.T) {
	tiers := func(cycle bool) map[string]string {
		c := []string{}
		if cycle {
			c = dependsOn("a")
		}
		return map[string]string{
			tierFile("a"): tier("a", "./a", true, dependsOn("b")...),
			"a/cm.yaml":   configMap("default", "a"),
			tierFile("b"): tier("b", "./b", true, c...),
			"b/cm.yaml":   configMap("default", "b"),
		}
	}
	base, head := renderTree(t, tiers(false)), renderTree(t, tiers(true))
	fs := stateRule(t, "depends-on-cycle")(head, base, testEnv())
	want := "Remove the dependsOn edge this change adds: flux-system/b -> flux-system/a (clusters/dev/b.yaml:14)."
	if len(fs) != 1 || fs[0].Suggestion != want {
		t.Fatalf("findings %s, want suggestion %q", dump(fs), want)
	}
}

// TestDependsOnCycleResolved: a change that removes a cycle gets advice about what it
// removed, never "remove the edge this change adds".
func TestDependsOnCycleResolved(t *testing.T) {
	tiers := func(cycle bool) map[string]string {
		c := []string{}
		if cycle {
			c = dependsOn("a")
		}
		return map[string]string{
			tierFile("a"): tier("a", "./a", true, dependsOn("b")...),
			"a/cm.yaml":   configMap("default", "a"),
			tierFile("b"): tier("b", "./b", true, c...),
			"b/cm.yaml":   configMap("default", "b"),
		}
	}
	base, head := renderTree(t, tiers(true)), renderTree(t, tiers(false))
	fs := stateRule(t, "depends-on-cycle")(base, head, testEnv())
	if len(fs) != 1 {
		t.Fatalf("findings %s", dump(fs))
	}
	got := fs[0].Resolved()
	want := "Nothing to do: this change breaks the cycle by removing the dependsOn edge flux-system/b -> flux-system/a (clusters/dev/b.yaml:14)."
	if got.Status != StatusResolved || got.Suggestion != want {
		t.Fatalf("status %s, suggestion %q, want %q", got.Status, got.Suggestion, want)
	}
}

// TestDependsOnCycleSources: a cycle on one source deadlocks at the next revision; one across
// two sources (checkDependencies compares revisions only within one source) once a member is
// not Ready. The message ends with the one that applies, never with both.
func TestDependsOnCycleSources(t *testing.T) {
	const across = "on a new cluster none of these Kustomizations is ever applied; on a running cluster they keep what they applied, " +
		"but once one of them is not Ready (a failed apply or health check) the others wait for it and it for them, so none becomes Ready again."
	for _, tc := range []struct {
		name   string
		source graph.SourceRef // of t00001; t00000's is GitRepository/flux-system/flux-system
		want   string
	}{
		{"one source", graph.SourceRef{Kind: "GitRepository", Namespace: "flux-system", Name: "flux-system"}, sharedSourceCycle},
		{"two sources", graph.SourceRef{Kind: "OCIRepository", Namespace: "flux-system", Name: "apps"}, across},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ringCluster(2, func(i int) []int { return []int{1 - i} })
			c.Kustomizations[ringRef(0)].Spec.SourceRef = graph.SourceRef{Kind: "GitRepository", Namespace: "flux-system", Name: "flux-system"}
			c.Kustomizations[ringRef(1)].Spec.SourceRef = tc.source
			got := dependsOnCycle(c, nil, testEnv())
			want := "dependsOn cycle flux-system/t00000 -> flux-system/t00001 -> flux-system/t00000: " + tc.want
			if len(got) != 1 || got[0].Message != want {
				t.Fatalf("got %+v, want one finding with message %q", got, want)
			}
			if strings.Contains(got[0].Message, "revision") != (tc.want == sharedSourceCycle) {
				t.Errorf("message %q names the revision for the wrong case", got[0].Message)
			}
		})
	}
}

// TestDependsOnCycleFlowStyle: in one file of two Kustomizations, a's flow-style
// `dependsOn: [{name: b}]` locates the finding at that line (13), not at b's `name: b`
// in the next document.
func TestDependsOnCycleFlowStyle(t *testing.T) {
	files := map[string]string{
		"clusters/dev/tiers.yaml": tier("a", "./a", true, "dependsOn: [{name: b}]") + "---\n" + tier("b", "./b", true, dependsOn("a")...),
		"a/cm.yaml":               configMap("default", "a"), "b/cm.yaml": configMap("default", "b"),
	}
	c := renderTree(t, files)
	checkBuilt(t, c)
	checkFindings(t, stateRule(t, "depends-on-cycle")(c, nil, testEnv()), []want{{
		Rule: "depends-on-cycle", Severity: Error, Kustomization: "flux-system/a", File: "clusters/dev/tiers.yaml", Line: 13,
		Msg: []string{"dependsOn cycle flux-system/a -> flux-system/b -> flux-system/a: " + sharedSourceCycle},
	}})
}
