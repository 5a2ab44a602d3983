package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/render"
)

// TestLoadFollowsSourceIgnoreSymlink: a commit whose .sourceignore is a symlink to a file
// of the tree is rendered as source-controller packs it, which reads the rules through the
// link: the ignored folder's ConfigMap is not in the graph, and the link itself is not.
func TestLoadFollowsSourceIgnoreSymlink(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"clusters/dev/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  url: https://git.example.invalid/fleet.git
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m
  path: ./clusters/dev
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
		"clusters/dev/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
		"apps/rules":       "skip/\n",
		"apps/a.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n",
		"apps/skip/s.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\n  namespace: default\n",
	}
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("rules", filepath.Join(dir, "apps", ".sourceignore")); err != nil {
		t.Fatal(err)
	}
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Worktree()
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.invalid", When: time.Unix(0, 0)}
	h, err := wt.Commit("c", &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		t.Fatal(err)
	}
	repo, err := gitrepo.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	tr, err := Load(repo, h, render.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := render.RenderSource(context.Background(), tr.Source, render.Options{SourceIgnore: true})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Cluster("dev")
	if c == nil {
		t.Fatalf("no cluster dev: %d clusters", len(g.Clusters))
	}
	var got []string
	for _, o := range c.Kustomizations[render.Ref{Namespace: "flux-system", Name: "apps"}].Objects {
		got = append(got, o.File)
	}
	if d := cmp.Diff([]string{"apps/a.yaml"}, got); d != "" {
		t.Errorf("objects of apps (-want +got):\n%s", d)
	}
}
