package rules

import "testing"

// TestPatchTargetLost: a kustomize patches entry with a target that selected an object at
// base and selects none at head is a no-op kustomize does not report (PatchTransformer over
// ResMap.Select): a warning on its target: line naming what it selected and the object its
// manifest builds now. A target that still selects, or never did, is no finding; nor is a
// name an upper overlay's namePrefix changes (Select also matches the original name).
func TestPatchTargetLost(t *testing.T) {
	overlay := func(target string, extra ...string) string {
		s := "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../base\n"
		for _, l := range extra {
			s += l + "\n"
		}
		return s + "patches:\n  - target:\n      kind: Deployment\n      name: " + target + "\n    patch: |\n      - op: replace\n        path: /spec/replicas\n        value: 3\n"
	}
	tree := func(deploy, overlayFile string, tierExtra ...string) map[string]string {
		return map[string]string{
			tierFile("apps"):               tier("apps", "./apps/prod", true, tierExtra...),
			"apps/base/kustomization.yaml": "resources:\n  - deploy.yaml\n",
			"apps/base/deploy.yaml":        deployment("web", deploy),
			"apps/prod/kustomization.yaml": overlayFile,
		}
	}
	fluxPatch := []string{"patches:", "  - target:", "      kind: Deployment", "      name: web", "    patch: |", "      - op: replace", "        path: /spec/replicas", "        value: 2"}
	plain := "resources:\n  - ../base\n"
	cases := []struct {
		name       string
		base, head map[string]string
		want       []want
	}{
		{
			name: "kustomization.yaml patch loses its Deployment",
			base: tree("web", overlay("web")), head: tree("web-v2", overlay("web")),
			want: []want{{Rule: "patch-target-lost", Severity: Warning, Kustomization: "flux-system/apps", File: "apps/prod/kustomization.yaml", Line: 6,
				Msg: []string{"The patch in apps/prod/kustomization.yaml with target kind=Deployment,name=web selected Deployment.apps/web/web at the base commit and selects nothing at head: " +
					"kustomize applies a patch whose target selects nothing to nothing, without an error, so Deployment.apps/web/web-v2 (apps/base/deploy.yaml:2), built from the same manifest, ships without it."},
				Sugg: []string{"Point the target at apps/prod/kustomization.yaml:6 to the object's new name or kind, or remove the patch if it is no longer meant to apply."}}},
		},
		{
			name: "spec.patches of the Flux Kustomization loses its Deployment",
			base: tree("web", plain, fluxPatch...), head: tree("web-v2", plain, fluxPatch...),
			want: []want{{Rule: "patch-target-lost", Severity: Warning, Kustomization: "flux-system/apps", File: tierFile("apps"), Line: 14,
				Msg: []string{"The patch in spec.patches of Kustomization flux-system/apps with target kind=Deployment,name=web selected Deployment.apps/web/web at the base commit and selects nothing at head"}}},
		},
		{
			name: "the Deployment is removed: the patch changes nothing",
			base: tree("web", overlay("web")),
			head: merge(tree("web", overlay("web")), map[string]string{"apps/base/deploy.yaml": configMap("web", "cm"), "apps/base/kustomization.yaml": "resources:\n  - deploy.yaml\n"}),
			want: []want{{Rule: "patch-target-lost", Severity: Warning, Kustomization: "flux-system/apps", File: "apps/prod/kustomization.yaml", Line: 6,
				Msg: []string{"selects nothing at head: kustomize applies a patch whose target selects nothing to nothing, without an error, so the patch no longer changes anything."}}},
		},
		// Negatives.
		{name: "still selects", base: tree("web", overlay("web")), head: tree("web", overlay("web"))},
		{name: "target renamed with the object", base: tree("web", overlay("web")), head: tree("web-v2", overlay("web-v2"))},
		{name: "selected nothing at base either", base: tree("web", overlay("nope")), head: tree("web-v2", overlay("nope"))},
		{name: "a namePrefix renames the object, the original name still selects", base: tree("web", overlay("web")), head: tree("web", overlay("web", "namePrefix: prod-"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderTree(t, tc.base), renderTree(t, tc.head)
			checkBuilt(t, base)
			checkBuilt(t, head)
			checkFindings(t, changeRule(t, "patch-target-lost")(base, head, testEnv()), tc.want)
		})
	}
}
