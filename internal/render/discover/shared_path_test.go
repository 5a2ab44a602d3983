package discover

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
	"github.com/tiergate/tiergate/internal/render/rendertest"
)

const gotkSync = "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 1m\n  url: ssh://git@example.com/fleet\n" +
	"---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 10m\n  prune: true\n  path: ./clusters/staging\n  sourceRef: {kind: GitRepository, name: flux-system}\n"

func fluxInstance(path string) string {
	return "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  sync:\n    kind: GitRepository\n    path: " + path + "\n"
}

// TestSharedRootPath: a FluxInstance in one cluster's folder whose sync.path is another
// cluster's folder is still its own cluster (two installations apply one folder), named
// after its own folder; a FluxInstance inside the folder it syncs, beside that folder's
// bootstrap root, is the same cluster found twice.
func TestSharedRootPath(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"instance points at another cluster's folder", map[string]string{
			"clusters/staging/flux-system/gotk-sync.yaml":        gotkSync,
			"clusters/production/flux-system/flux-instance.yaml": fluxInstance("clusters/staging"),
		}, []string{
			"production clusters/staging clusters/production/flux-system/flux-instance.yaml",
			"staging ./clusters/staging clusters/staging/flux-system/gotk-sync.yaml",
		}},
		{"bootstrap root points at another cluster's folder", map[string]string{
			"clusters/staging/flux-system/gotk-sync.yaml":        strings.Replace(gotkSync, "path: ./clusters/staging", "path: ./clusters/production", 1),
			"clusters/production/flux-system/flux-instance.yaml": fluxInstance("clusters/production"),
		}, []string{
			"production clusters/production clusters/production/flux-system/flux-instance.yaml",
			"staging ./clusters/production clusters/staging/flux-system/gotk-sync.yaml",
		}},
		{"instance beside the bootstrap root it replaces", map[string]string{
			"clusters/staging/flux-system/gotk-sync.yaml":     gotkSync,
			"clusters/staging/flux-system/flux-instance.yaml": fluxInstance("clusters/staging"),
		}, []string{"staging ./clusters/staging clusters/staging/flux-system/gotk-sync.yaml"}},
		{"two instances outside the folder they share", map[string]string{
			"clusters/a/flux-instance.yaml": fluxInstance("clusters/shared"),
			"clusters/b/flux-instance.yaml": fluxInstance("clusters/shared"),
			"clusters/shared/cm.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
		}, []string{"a clusters/shared clusters/a/flux-instance.yaml", "b clusters/shared clusters/b/flux-instance.yaml"}},
	} {
		src, err := fsys.ReadSource(rendertest.Tree(t, tc.files), graph.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		roots, _ := Discover(index.New(src.Snapshot, nil), nil, nil)
		var got []string
		for _, r := range roots {
			got = append(got, r.Name+" "+r.KS.Spec.Path+" "+r.KS.File)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s: roots (-want +got):\n%s", tc.name, d)
		}
	}
}
