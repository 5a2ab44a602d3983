package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Objects two Kustomizations emit from the same manifest files have one cause, the path:
// one duplicate-owner finding per pair at the spec.path line of the one the change adds,
// naming the path, how it relates to the other's, and every object. A Kustomization whose
// path is the folder of its own manifest (the root's) applies itself as well; one whose path
// is inside another's folder shares what is under it. Two files that declare the same object
// are still one finding per object (TestDuplicateOwner "two owners").
func TestDuplicateOwnerSharedPath(t *testing.T) {
	const effects = " Each apply sets the kustomize.toolkit.fluxcd.io/name label to its own name, so ownership flips on every reconcile and both inventories list them; when either prunes one, or is deleted (its finalizer garbage-collects its inventory), it deletes those that carry its labels at that moment, the other's included."
	cases := []struct {
		name  string
		files map[string]string
		want  []Finding
	}{
		{name: "path of the root's folder", files: map[string]string{
			tierFile("a"):    tier("a", "./a", true),
			tierFile("loop"): tier("loop", "./clusters/dev", true),
			"a/cm.yaml":      configMap("default", "cm"),
		}, want: []Finding{{Rule: "duplicate-owner", Severity: Error, Cluster: "dev", Kustomization: "flux-system/loop", File: "clusters/dev/loop.yaml", Line: 8,
			Message: `Kustomization flux-system/loop's spec.path "./clusters/dev" is the folder flux-system/flux-system builds, so flux-system/flux-system and flux-system/loop build the same manifests and both apply these 4 objects, its own manifest among them (kustomize-controller applies it and leaves it out of flux-system/loop's health checks): ` +
				"Kustomization.kustomize.toolkit.fluxcd.io/flux-system/a, GitRepository.source.toolkit.fluxcd.io/flux-system/flux-system, Kustomization.kustomize.toolkit.fluxcd.io/flux-system/flux-system, Kustomization.kustomize.toolkit.fluxcd.io/flux-system/loop." + effects,
			Suggestion: "Point spec.path of flux-system/loop (clusters/dev/loop.yaml:8) at a folder that flux-system/flux-system does not build (one that holds only flux-system/loop's own manifests), or delete flux-system/loop. Before deleting it from a cluster where it ran with prune: true, set `prune: false` on it first, or its garbage collection deletes these objects."}}},
		{name: "path inside another's folder", files: map[string]string{
			tierFile("apps"):  tier("apps", "./apps", true),
			tierFile("web"):   tier("web", "./apps/web", true),
			"apps/cm.yaml":    configMap("default", "top"),
			"apps/web/a.yaml": configMap("default", "web-a"),
			"apps/web/b.yaml": configMap("default", "web-b"),
		}, want: []Finding{{Rule: "duplicate-owner", Severity: Error, Cluster: "dev", Kustomization: "flux-system/web", File: "clusters/dev/web.yaml", Line: 8,
			Message:    `Kustomization flux-system/web's spec.path "./apps/web" is inside flux-system/apps's folder apps, so flux-system/apps and flux-system/web build the same manifests and both apply these 2 objects: ConfigMap/default/web-a, ConfigMap/default/web-b.` + effects,
			Suggestion: "Point spec.path of flux-system/web (clusters/dev/web.yaml:8) at a folder that flux-system/apps does not build (one that holds only flux-system/web's own manifests), or delete flux-system/web. Before deleting it from a cluster where it ran with prune: true, set `prune: false` on it first, or its garbage collection deletes these objects."}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, tc.files)
			got := duplicateOwner(c, nil, testEnv())
			if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(Finding{}), cmpopts.IgnoreFields(Finding{}, "resolvedAdvice", "refs", "key")); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
		})
	}
}
