package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5"
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
	writeFiles(t, dir, files)
	if err := os.Symlink("rules", filepath.Join(dir, "apps", ".sourceignore")); err != nil {
		t.Fatal(err)
	}
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	h := commitAll(t, dir)
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

// TestLoadRefusesABlobOverMaxFileBytes: Load passes each blob's size from its header, so a
// file over MaxFileBytes is refused with its exact size and never read, while the files
// within the limit, a symlink's target and a .sourceignore keep their committed content.
func TestLoadRefusesABlobOverMaxFileBytes(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"ok.yaml":       "a: 1\n",
		"apps/big.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n",
		"apps/edge.txt": "0123456789abcdef", // exactly at the limit: kept
	}
	writeFiles(t, dir, files)
	if err := os.Symlink("ok.yaml", filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	h := commitAll(t, dir)
	repo, err := gitrepo.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	tr, err := Load(repo, h, graph.Limits{MaxFileBytes: 16})
	if err != nil {
		t.Fatal(err)
	}
	type entry struct {
		Content string
		Refused string
	}
	got := map[string]entry{}
	for _, p := range []string{"ok.yaml", "apps/big.yaml", "apps/edge.txt", "link.yaml"} {
		data, _ := tr.Source.ReadFile(p)
		why, _ := tr.Source.Refused(p)
		got[p] = entry{Content: string(data), Refused: why}
	}
	want := map[string]entry{
		"ok.yaml":       {Content: "a: 1\n"},
		"apps/big.yaml": {Refused: "apps/big.yaml has 53 bytes, over tiergate's per-file limit of 16 (--max-file-bytes)"},
		"apps/edge.txt": {Content: "0123456789abcdef"},
		"link.yaml":     {Refused: "link.yaml is a symlink, which source-controller leaves out of the artifact"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("source (-want +got):\n%s", d)
	}
}
