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
	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestLoadFollowsSourceIgnoreSymlink: a commit (the demo scenario's head) whose
// apps/.sourceignore is a symlink to a file of the tree is rendered as source-controller
// packs it, reading the rules through the link: the ignored folder's ConfigMap is not in
// the graph, and neither is the link.
func TestLoadFollowsSourceIgnoreSymlink(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../../testdata/scenarios/demo/head")); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"apps/rules":       "skip/\n",
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
	tr, err := Load(repo, h, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	g, err := render.RenderSource(context.Background(), tr.Source, render.Options{SourceIgnore: true})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Cluster("demo")
	if c == nil {
		t.Fatalf("no cluster demo: %d clusters", len(g.Clusters))
	}
	var got []string
	for _, o := range c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].Objects {
		got = append(got, o.File)
	}
	if d := cmp.Diff([]string{"apps/web/deployment.yaml"}, got); d != "" {
		t.Errorf("objects of apps (-want +got):\n%s", d)
	}
}
