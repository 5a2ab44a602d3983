package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Make creates the repository dest from scenario: base/ committed on main, head/ on
// move-pvc (its child), main checked out. It returns the two commits. dest must be absent
// or empty; scenario must hold base/ and head/ folders.
func Make(dest, scenario string) (base, head plumbing.Hash, err error) {
	for _, side := range []string{"base", "head"} {
		if fi, err := os.Stat(filepath.Join(scenario, side)); err != nil || !fi.IsDir() {
			return base, head, fmt.Errorf("%s: no %s/ folder (run from the tiergate checkout, or set --scenario)", scenario, side)
		}
	}
	if entries, err := os.ReadDir(dest); err == nil && len(entries) > 0 {
		return base, head, fmt.Errorf("%s exists and is not empty", dest)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return base, head, err
	}
	r, err := git.PlainInitWithOptions(dest, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.Main}})
	if err != nil {
		return base, head, err
	}
	wt, err := r.Worktree()
	if err != nil {
		return base, head, err
	}
	if base, err = commitSide(wt, dest, filepath.Join(scenario, "base"), "base: the fleet before the PR", 0); err != nil {
		return base, head, err
	}
	branch := plumbing.NewBranchReferenceName("move-pvc")
	if err := wt.Checkout(&git.CheckoutOptions{Branch: branch, Create: true}); err != nil {
		return base, head, err
	}
	if head, err = commitSide(wt, dest, filepath.Join(scenario, "head"), "head: the PR's change", 1); err != nil {
		return base, head, err
	}
	return base, head, wt.Checkout(&git.CheckoutOptions{Branch: plumbing.Main})
}

// commitSide replaces the work tree's files with those of src and commits them all.
func commitSide(wt *git.Worktree, dest, src, msg string, n int) (plumbing.Hash, error) {
	entries, err := os.ReadDir(dest)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	for _, e := range entries {
		if e.Name() != ".git" {
			if err := os.RemoveAll(filepath.Join(dest, e.Name())); err != nil {
				return plumbing.ZeroHash, err
			}
		}
	}
	if err := os.CopyFS(dest, os.DirFS(src)); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		return plumbing.ZeroHash, err
	}
	sig := &object.Signature{Name: "tiergate example", Email: "example@tiergate.invalid", When: time.Unix(1764633600+int64(n)*60, 0).UTC()}
	return wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true})
}
