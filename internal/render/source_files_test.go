package render

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestSourceFiles: the files a graph's sources contain are those of the folders its
// Kustomizations build from, less each GitRepository's spec.ignore; a configured root's
// stand-in source counts for nothing.
func TestSourceFiles(t *testing.T) {
	gitRepo := func(name, ignore string) string {
		out := "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: " + name + "\n  namespace: flux-system\nspec:\n  url: https://git.example.invalid/x.git\n"
		if ignore != "" {
			out += "  ignore: |\n    " + strings.ReplaceAll(ignore, "\n", "\n    ") + "\n"
		}
		return out
	}
	helmfile := "releases:\n  - name: cert-manager\n    chart: jetstack/cert-manager\n"
	list := func(g *graph.Graph) []string {
		var out []string
		for _, f := range SourceFiles(g).RegularFiles() {
			if strings.HasSuffix(f, "helmfile.yaml") {
				out = append(out, f)
			}
		}
		return out
	}
	t.Run("bootstrap root: the whole repository less spec.ignore", func(t *testing.T) {
		files := merge(bootstrap("dev"), map[string]string{
			"bootstrap/helmfile.yaml":        helmfile,
			"testdata/fixture/helmfile.yaml": helmfile,
			"clusters/dev/apps.yaml":         ks("apps", "./apps"),
			"apps/cm.yaml":                   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n",
		})
		files["clusters/dev/flux-system/gotk-sync.yaml"] = strings.Replace(files["clusters/dev/flux-system/gotk-sync.yaml"],
			"  url: https://git.example.invalid/fleet.git\n", "  url: https://git.example.invalid/fleet.git\n  ignore: |\n    /testdata/\n", 1)
		g, err := Render(context.Background(), tree(t, files), Options{SourceIgnore: true})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{"bootstrap/helmfile.yaml"}, list(g)); d != "" {
			t.Errorf("helmfiles (-want +got):\n%s", d)
		}
	})
	t.Run("configured cluster: only what its sources pack", func(t *testing.T) {
		files := map[string]string{
			"deploy/flux/repo.yaml":          gitRepo("app", "/*\n!/deploy/"),
			"deploy/flux/ks.yaml":            strings.Replace(ks("app", "./deploy/app"), "name: flux-system\n", "name: app\n", 1),
			"deploy/app/cm.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n",
			"deploy/helmfile.yaml":           helmfile,
			"testdata/fixture/helmfile.yaml": helmfile,
		}
		cfg := &config.Config{Clusters: []config.Cluster{{Name: "app", Path: "deploy/flux"}}, Sources: map[string]string{"GitRepository/flux-system/app": "."}}
		g, err := Render(context.Background(), tree(t, files), Options{Config: cfg, SourceIgnore: true})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{"deploy/helmfile.yaml"}, list(g)); d != "" {
			t.Errorf("helmfiles (-want +got):\n%s", d)
		}
	})
}
