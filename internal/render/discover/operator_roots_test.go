package discover

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
	"github.com/tiergate/tiergate/internal/render/rendertest"
)

// TestOperatorRootsBuildsOnlyCandidateFolders: discovery builds only the folders that may
// hold a FluxInstance or a flux-instance HelmRelease, whether or not another part of
// discovery parsed their files first (a HelmRelease whose chart comes from an OCIRepository
// is parsed by sourceFolders), and still finds every root such a folder gives.
func TestOperatorRootsBuildsOnlyCandidateFolders(t *testing.T) {
	other := func(name string) string {
		return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: " + name +
			"\nspec:\n  chartRef:\n    kind: OCIRepository\n    name: " + name + "\n"
	}
	// The chart renders spec.sync only with instance.sync.url (templates/instance.yaml).
	sync := "  values:\n    instance:\n      sync:\n        kind: GitRepository\n        url: https://example.invalid/fleet.git\n        path: clusters/"
	files := map[string]string{
		// Not candidates: HelmReleases of other charts, parsed before operatorRoots runs.
		"apps/a/app/helmrelease.yaml": other("podinfo"),
		"apps/a/app/ocirepository.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: podinfo\n" +
			"spec:\n  url: oci://ghcr.io/example/podinfo\n",
		"apps/b/app/helmrelease.yaml": other("redis"),
		// A file that spells FluxInstance, with no HelmRelease nor FluxInstance in it.
		"apps/c/app/rule.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rule\ndata:\n  expr: flux_resource_info{kind=\"FluxInstance\"}\n",
		// Candidates: a flux-instance HelmRelease by its text...
		"flux/one/helmrelease.yaml": other("flux-instance") + sync + "one\n",
		// ...by its folder's kustomization.yaml, which patches the chart in...
		"flux/two/helmrelease.yaml": other("flux") + sync + "two\n",
		"flux/two/kustomization.yaml": "resources: [helmrelease.yaml]\npatches:\n  - patch: |-\n" +
			"      - {op: replace, path: /spec/chartRef/name, value: flux-instance}\n    target: {kind: HelmRelease}\n",
		// ...by its path...
		"flux-instance/three/helmrelease.yaml": other("flux") + sync + "three\n",
		// ...and a FluxInstance.
		"flux/four/instance.yaml": "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\n" +
			"spec:\n  sync:\n    kind: GitRepository\n    path: clusters/four\n",
	}
	src, err := fsys.ReadSource(rendertest.Tree(t, files), graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ix := index.New(src.Snapshot, nil)
	all := ix.YAMLFiles()
	sourceFolders(ix, all) // parses the files that spell OCIRepository, as discover does first
	var built []string
	rawBuild := func(dir string) []*graph.Object {
		built = append(built, dir)
		var in []string
		for _, rel := range all {
			if rel != dir && len(rel) > len(dir) && rel[:len(dir)+1] == dir+"/" {
				in = append(in, rel)
			}
		}
		objs := rawObjects(ix, in)
		if dir == "flux/two" { // the folder's patch, as its build applies it
			for _, o := range objs {
				o.Body.Object["spec"].(map[string]any)["chartRef"].(map[string]any)["name"] = "flux-instance"
			}
		}
		return objs
	}
	var paths []string
	for _, r := range operatorRoots(ix, all, rawBuild) {
		paths = append(paths, r.Name+" "+r.KS.Spec.Path+" "+r.KS.File)
	}
	wantBuilt := []string{"flux/four", "flux/one", "flux/two", "flux-instance/three"}
	if d := cmp.Diff(wantBuilt, built); d != "" {
		t.Errorf("folders built (-want +got):\n%s", d)
	}
	want := []string{
		"four clusters/four flux/four/instance.yaml",
		"one clusters/one flux/one/helmrelease.yaml",
		"two clusters/two flux/two/helmrelease.yaml",
		"three clusters/three flux-instance/three/helmrelease.yaml",
	}
	if d := cmp.Diff(want, paths); d != "" {
		t.Errorf("roots (-want +got):\n%s", d)
	}
}
