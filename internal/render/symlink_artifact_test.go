package render

import (
	"cmp"
	"os"
	"path/filepath"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestSymlinkLeftOutOfArtifact: with source-controller's packing applied (SourceIgnore),
// a kustomization entry that is a symlink, or lies below one, is missing from the artifact as
// it is in the cluster; the render-error says it is a symlink that source-controller leaves
// out, and where it points. An entry that is simply missing still "does not exist".
func TestSymlinkLeftOutOfArtifact(t *testing.T) {
	cases := []struct {
		name, kustomization string
		links               map[string]string
		want                string
		path                string // the Kustomization's spec.path, ./apps when ""
	}{
		{"file symlink outside the repository", "resources:\n  - cm.yaml\n  - passwd.yaml\n", map[string]string{"apps/passwd.yaml": "/etc/passwd"},
			"apps/kustomization.yaml:3 lists 'passwd.yaml': apps/passwd.yaml is a symlink (to /etc/passwd, outside the repository), which source-controller leaves out of the artifact it packs (only regular files and folders), so kustomize-controller does not find it", ""},
		{"entry below a folder symlink inside the repository", "resources:\n  - linked/x.yaml\n", map[string]string{"apps/linked": "../shared"},
			"apps/kustomization.yaml:2 lists 'linked/x.yaml': apps/linked is a symlink (to ../shared), which source-controller leaves out of the artifact it packs (only regular files and folders), so kustomize-controller does not find it", ""},
		{"missing entry", "resources:\n  - gone.yaml\n", nil,
			"apps/kustomization.yaml:2 lists 'gone.yaml', which does not exist", ""},
		{"spec.path a folder symlink", "resources:\n  - cm.yaml\n", map[string]string{"apps-link": "apps"},
			"kustomization path not found: ./apps-link: apps-link is a symlink (to apps), which source-controller leaves out of the artifact it packs (only regular files and folders), so kustomize-controller does not find it", "./apps-link"},
		{"spec.path a missing folder", "resources:\n  - cm.yaml\n", nil, "kustomization path not found: ./nowhere", "./nowhere"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := tree(t, merge(bootstrap("dev"), map[string]string{
				"clusters/dev/apps.yaml":  ks("apps", cmp.Or(tc.path, "./apps")),
				"apps/cm.yaml":            cm("default", "a"),
				"apps/kustomization.yaml": tc.kustomization,
				"shared/x.yaml":           cm("default", "x"),
			}))
			for link, target := range tc.links {
				if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
					t.Fatal(err)
				}
			}
			apps := renderWithin(t, dir, Options{SourceIgnore: true}).Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
			if apps.Err == nil {
				t.Fatalf("apps built %d objects, want an error", len(apps.Objects))
			}
			if d := gocmp.Diff(tc.want, apps.Err.Message); d != "" {
				t.Errorf("message (-want +got):\n%s", d)
			}
		})
	}
}
