package pipeline

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// commitFiles writes files (path → content; "" removes it) into the work tree dir and
// commits them all (writeFiles, commitAll).
func commitFiles(t *testing.T, dir string, files map[string]string) plumbing.Hash {
	t.Helper()
	writeFiles(t, dir, files)
	return commitAll(t, dir)
}

// writeFiles writes files (path → content; "" removes it) into the folder dir, making
// the folders they need.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if c == "" {
			if err := os.Remove(full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// commitAll commits everything in the work tree of the repository at dir, as author and
// committer "t" at the Unix epoch (so the hash depends on the tree and parent only).
func commitAll(t *testing.T, dir string) plumbing.Hash {
	t.Helper()
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Worktree()
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.invalid", When: time.Unix(0, 0)}
	h, err := wt.Commit("c", &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestLoadSharedEqualsLoad: two commits read with one Blobs give the Snapshots Load gives
// each alone (contents, refusals, digests), an unchanged file's bytes are the same slice
// in both, and an alias bomb both hold is refused in both; a file over MaxFileBytes is
// refused by its size in both and never kept.
func TestLoadSharedEqualsLoad(t *testing.T) {
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, false); err != nil {
		t.Fatal(err)
	}
	bomb := string(aliasBombYAML())
	base := commitFiles(t, dir, map[string]string{
		"same.yaml":    "a: &a 1\nb: *a\n",
		"edited.yaml":  "v: 1\n",
		"gone.yaml":    "g: 1\n",
		"bomb.yaml":    bomb,
		"big/big.yaml": "k: 0123456789012345678901234567890123456789\n",
	})
	head := commitFiles(t, dir, map[string]string{"edited.yaml": "v: 2\n", "gone.yaml": "", "copy.yaml": "a: &a 1\nb: *a\n"})
	repo, err := gitrepo.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	l := graph.Limits{MaxFileBytes: 40}
	shared := &Blobs{}
	var got, want [2]*graph.Snapshot
	for i, h := range []plumbing.Hash{base, head} {
		s, err := LoadShared(repo, h, l, shared)
		if err != nil {
			t.Fatal(err)
		}
		alone, err := Load(repo, h, l)
		if err != nil {
			t.Fatal(err)
		}
		got[i], want[i] = s.Source.Snapshot, alone.Source.Snapshot
		if s.Source.ID != alone.Source.ID {
			t.Errorf("id %q, want %q", s.Source.ID, alone.Source.ID)
		}
	}
	for i := range got {
		for _, f := range []struct {
			name      string
			got, want any
		}{{"Data", got[i].Data, want[i].Data}, {"Refused", got[i].Refused, want[i].Refused}, {"Digests", got[i].Digests, want[i].Digests}, {"Types", got[i].Types, want[i].Types}} {
			if d := cmp.Diff(f.want, f.got); d != "" {
				t.Errorf("commit %d %s (-Load +LoadShared):\n%s", i, f.name, d)
			}
		}
		if _, ok := got[i].Refused["bomb.yaml"]; !ok {
			t.Errorf("commit %d: bomb.yaml not refused", i)
		}
		if _, ok := got[i].Data["big/big.yaml"]; ok {
			t.Errorf("commit %d: big/big.yaml kept", i)
		}
	}
	if &got[0].Data["same.yaml"][0] != &got[1].Data["same.yaml"][0] || &got[1].Data["copy.yaml"][0] != &got[1].Data["same.yaml"][0] {
		t.Error("an unchanged blob was read again: base and head hold different bytes")
	}
	if &got[0].Data["edited.yaml"][0] == &got[1].Data["edited.yaml"][0] {
		t.Error("an edited file shares its base's bytes")
	}
}
