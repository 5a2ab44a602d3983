package rules

import "testing"

func TestDestructivePrune(t *testing.T) {
	tiers := map[string]string{
		tierFile("a"): tier("a", "./a", true),
		tierFile("b"): tier("b", "./b", true),
		"a/keep.yaml": configMap("default", "keep-a"),
		"b/keep.yaml": configMap("default", "keep-b"),
	}
	without := func(m map[string]string, files ...string) map[string]string {
		out := merge(m)
		for _, f := range files {
			delete(out, f)
		}
		return out
	}
	withNS := merge(tiers, map[string]string{"a/ns.yaml": namespaceObj("data")})
	nsFinding := want{
		Rule: "destructive-prune", Severity: Error, Kustomization: "flux-system/a",
		Object: "Namespace/data", File: "a/ns.yaml", Line: 2,
		Msg:  []string{"Namespace/data is removed from flux-system/a", "everything in Namespace data"},
		Sugg: []string{"kustomize.toolkit.fluxcd.io/prune: disabled"},
	}
	rset := func(inputs string) map[string]string {
		return merge(tiers, map[string]string{"a/rset.yaml": obj("fluxcd.controlplane.io/v1", "ResourceSet", "flux-system", "teams",
			"spec:\n"+inputs+"  resourcesTemplate: |\n    apiVersion: v1\n    kind: Namespace\n    metadata:\n      name: << inputs.team >>") +
			"---\n" + obj("fluxcd.controlplane.io/v1", "ResourceSetInputProvider", "flux-system", "prs", "spec: {type: GitHubPullRequest, url: https://github.com/example/app}")})
	}
	cases := []struct {
		name       string
		base, head map[string]string
		broken     []string // head Kustomizations expected to fail
		want       []want
	}{
		{
			name: "ResourceSet no longer renders a Namespace, under prune false too",
			base: merge(rset("  inputs: [{team: red}, {team: blue}]\n"), map[string]string{tierFile("a"): tier("a", "./a", false)}),
			head: merge(rset("  inputs: [{team: red}]\n"), map[string]string{tierFile("a"): tier("a", "./a", false)}),
			want: []want{{
				Rule: "destructive-prune", Severity: Error, Kustomization: "flux-system/a",
				Object: "Namespace/blue", File: "a/rset.yaml", Line: 2,
				Msg:  []string{"Namespace/blue is no longer rendered by ResourceSet flux-system/teams (applied by flux-system/a), which garbage-collects it: flux-operator deletes it"},
				Sugg: []string{"fluxcd.controlplane.io/prune: disabled"},
			}},
		},
		{
			name: "ResourceSet whose inputs move to a live provider: unknown, not gone",
			base: rset("  inputs: [{team: red}]\n"),
			head: rset("  inputsFrom: [{name: prs}]\n"),
		},
		{
			name: "Namespace removed under prune true",
			base: withNS,
			head: tiers,
			want: []want{nsFinding},
		},
		{
			name: "PersistentVolumeClaim removed under prune true",
			base: merge(tiers, map[string]string{"a/pvc.yaml": pvc("default", "data", "")}),
			head: tiers,
			want: []want{{
				Rule: "destructive-prune", Severity: Error, Kustomization: "flux-system/a",
				Object: "PersistentVolumeClaim/default/data", File: "a/pvc.yaml", Line: 2,
				Msg: []string{"its volume and data go too"},
			}},
		},
		{
			name: "CustomResourceDefinition removed under prune true",
			base: merge(tiers, map[string]string{"a/crd.yaml": crd("example.com", "Widget", "widgets", "Namespaced")}),
			head: tiers,
			want: []want{{
				Rule: "destructive-prune", Severity: Error, Kustomization: "flux-system/a",
				Object: "CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com", File: "a/crd.yaml", Line: 2,
				Msg: []string{"every custom resource of that kind"},
			}},
		},
		{
			name: "Deployment removed",
			base: merge(tiers, map[string]string{"a/deploy.yaml": deployment("default", "web")}),
			head: tiers,
		},
		{
			name: "prune false",
			base: merge(withNS, map[string]string{tierFile("a"): tier("a", "./a", false)}),
			head: merge(tiers, map[string]string{tierFile("a"): tier("a", "./a", false)}),
		},
		{
			name: "owner keeps the same unfetched remote resource: what it lacks is gone",
			base: merge(withNS, map[string]string{"a/kustomization.yaml": remoteKustomization("ns.yaml", "keep.yaml")}),
			head: merge(tiers, map[string]string{"a/kustomization.yaml": remoteKustomization("keep.yaml")}),
			want: []want{nsFinding},
		},
		{
			name: "owner adds an unfetched remote resource that may hold it: unknown",
			base: withNS,
			head: merge(tiers, map[string]string{"a/kustomization.yaml": remoteKustomization("keep.yaml")}),
		},
		{
			name: "owner fails to build at head",
			base: withNS,
			head: merge(tiers, map[string]string{
				"a/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - keep.yaml\n  - missing.yaml\n",
			}),
			broken: []string{"a"},
		},
		{
			name:   "owner absent because the root fails to build at head",
			base:   withNS,
			head:   merge(tiers, map[string]string{"clusters/dev/broken.yaml": "kind: [\n"}),
			broken: []string{"flux-system"},
		},
		{
			name: "annotated prune disabled at base",
			base: merge(tiers, map[string]string{"a/ns.yaml": namespaceObj("data",
				"  annotations:", "    kustomize.toolkit.fluxcd.io/prune: disabled")}),
			head: tiers,
		},
		{
			name: "owner deleted: its finalizer prunes",
			base: withNS,
			head: without(tiers, tierFile("a"), "a/keep.yaml"),
			want: []want{nsFinding},
		},
		{
			name: "PVC whose identity changes through targetNamespace is left to prune-transient",
			base: merge(tiers, map[string]string{
				tierFile("a"): tier("a", "./a", true, "targetNamespace: one"),
				"a/pvc.yaml":  pvc("", "data", ""),
			}),
			head: merge(tiers, map[string]string{
				tierFile("a"): tier("a", "./a", true, "targetNamespace: two"),
				"a/pvc.yaml":  pvc("", "data", ""),
			}),
		},
		{
			// The API server rejects Kustomization bad, so b applies nothing and never
			// takes the Namespace over; a prunes it.
			name:   "moved to a tier that fails at head",
			base:   withNS,
			head:   merge(tiers, map[string]string{"b/ns.yaml": namespaceObj("data"), "b/bad.yaml": tier("bad", "./a", true, "dependsOn: b")}),
			broken: []string{"b"},
			want: []want{{
				Rule: "destructive-prune", Severity: Error, Kustomization: "flux-system/a",
				Object: "Namespace/data", File: "a/ns.yaml", Line: 2,
				Msg:  []string{"Namespace/data is removed from flux-system/a", "flux-system/b fails at head and applies nothing"},
				Sugg: []string{"Fix the render-error of flux-system/b first. If Namespace/data must survive, first annotate it `kustomize.toolkit.fluxcd.io/prune: disabled` (merged and applied), then remove it from git."},
			}},
		},
		{
			name: "moved to another tier is not removed",
			base: withNS,
			head: merge(tiers, map[string]string{"b/ns.yaml": namespaceObj("data")}),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderTree(t, tc.base), renderTree(t, tc.head)
			checkBuilt(t, base)
			checkBuilt(t, head, tc.broken...)
			checkFindings(t, changeRule(t, "destructive-prune")(base, head, testEnv()), tc.want)
		})
	}
}

// remoteKustomization is a kustomization.yaml of files and one remote resource, which a
// review does not fetch.
func remoteKustomization(files ...string) string {
	out := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - https://example.com/crds.yaml\n"
	for _, f := range files {
		out += "  - " + f + "\n"
	}
	return out
}
