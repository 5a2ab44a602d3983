package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/google/go-cmp/cmp"
)

const demo = "../../testdata/scenarios/demo"

// files lists dir's regular files as path → content, relative, without .git.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() == ".git" && d.IsDir() {
			if err == nil {
				return filepath.SkipDir
			}
			return err
		}
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// treeFiles lists a commit's files as path → content.
func treeFiles(t *testing.T, c *object.Commit) map[string]string {
	t.Helper()
	out := map[string]string{}
	iter, err := c.Files()
	if err != nil {
		t.Fatal(err)
	}
	if err := iter.ForEach(func(f *object.File) error {
		s, err := f.Contents()
		out[f.Name] = s
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMake checks the fleet: main holds base/, move-pvc its child holding head/, main is
// checked out with a clean work tree, and a second run makes the same commits.
func TestMake(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "fleet")
	base, head, err := Make(dest, demo)
	if err != nil {
		t.Fatal(err)
	}
	r, err := git.PlainOpen(dest)
	if err != nil {
		t.Fatal(err)
	}
	var branches []string
	refs, _ := r.Branches()
	_ = refs.ForEach(func(ref *plumbing.Reference) error {
		branches = append(branches, ref.Name().Short()+" "+ref.Hash().String())
		return nil
	})
	sort.Strings(branches)
	if diff := cmp.Diff([]string{"main " + base.String(), "move-pvc " + head.String()}, branches); diff != "" {
		t.Errorf("branches (-want +got):\n%s", diff)
	}
	hc, err := r.CommitObject(head)
	if err != nil {
		t.Fatal(err)
	}
	if len(hc.ParentHashes) != 1 || hc.ParentHashes[0] != base {
		t.Errorf("move-pvc's parents %v, want [%s]", hc.ParentHashes, base)
	}
	bc, err := r.CommitObject(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		c    *object.Commit
		side string
	}{{bc, "base"}, {hc, "head"}} {
		if diff := cmp.Diff(files(t, filepath.Join(demo, tc.side)), treeFiles(t, tc.c)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.side, diff)
		}
	}
	if diff := cmp.Diff(files(t, filepath.Join(demo, "base")), files(t, dest)); diff != "" {
		t.Errorf("work tree (-want main's files +got):\n%s", diff)
	}
	head0, _ := r.Head()
	if head0.Name() != plumbing.Main {
		t.Errorf("HEAD is %s, want main", head0.Name())
	}
	base2, head2, err := Make(filepath.Join(t.TempDir(), "again"), demo)
	if err != nil || base2 != base || head2 != head {
		t.Errorf("second run: %s %s %v, want %s %s", base2, head2, err, base, head)
	}
}

func TestMakeRefuses(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dest, scenario, want string }{
		{full, demo, full + " exists and is not empty"},
		{filepath.Join(t.TempDir(), "f"), "nope", "nope: no base/ folder (run from the tiergate checkout, or set --scenario)"},
	} {
		if _, _, err := Make(tc.dest, tc.scenario); err == nil || err.Error() != tc.want {
			t.Errorf("Make(%s, %s) = %v, want %q", tc.dest, tc.scenario, err, tc.want)
		}
	}
}
