package main

import (
	"github.com/go-git/go-git/v5/plumbing"

	"fmt"
	"strings"

	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/pipeline"
)

// trees reads both sides into memory; the base is the merge-base unless told not.
func trees(f reviewFlags) (*pipeline.Tree, *pipeline.Tree, error) {
	if f.worktree || f.headDir != "" && f.baseDir == "" && f.base != "" {
		return worktreeTrees(f)
	}
	if f.baseDir != "" || f.headDir != "" {
		if f.baseDir == "" || f.headDir == "" {
			return nil, nil, fmt.Errorf("--base-dir and --head-dir go together")
		}
		b, err := pipeline.ReadDir(f.baseDir, f.limits)
		if err != nil {
			return nil, nil, err
		}
		h, err := pipeline.ReadDir(f.headDir, f.limits)
		if err != nil {
			return nil, nil, err
		}
		return b, h, nil
	}
	if f.base == "" {
		return nil, nil, fmt.Errorf("--base is required (or --base-dir and --head-dir)")
	}
	repo, err := gitrepo.Open(f.repo)
	if err != nil {
		return nil, nil, err
	}
	defer repo.Close()
	// Resolve's error already says when the clone is shallow.
	hh, err := repo.Resolve(f.head)
	if err != nil {
		return nil, nil, err
	}
	bh, err := baseCommit(repo, f, hh)
	if err != nil {
		return nil, nil, err
	}
	warnUncommitted(f, repo, hh)
	shared := &pipeline.Blobs{} // the files both commits hold are read once
	b, err := pipeline.LoadShared(repo, bh, f.limits, shared)
	if err != nil {
		return nil, nil, err
	}
	h, err := pipeline.LoadShared(repo, hh, f.limits, shared)
	if err != nil {
		return nil, nil, err
	}
	return b, h, nil
}

// shallowHint explains the usual cause of a merge base that cannot be found in CI: a
// shallow clone.
func shallowHint(err error) error {
	if strings.Contains(err.Error(), "object not found") || strings.Contains(err.Error(), "no such ancestor") {
		return fmt.Errorf("%w (a shallow clone? fetch the history: git fetch --unshallow, or actions/checkout with fetch-depth: 0)", err)
	}
	return err
}

// baseCommit resolves --base: the merge-base of it and head, or itself with --no-merge-base.
func baseCommit(repo *gitrepo.Repo, f reviewFlags, head plumbing.Hash) (plumbing.Hash, error) {
	bh, err := repo.Resolve(f.base)
	if err != nil || f.noMergeBase {
		return bh, err
	}
	if bh, err = repo.MergeBase(bh, head); err != nil {
		return bh, shallowHint(err)
	}
	return bh, nil
}
