package main

import (
	"fmt"

	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/pipeline"
)

// trees checks out (or copies) both sides; the base is the merge-base unless told not.
func trees(f reviewFlags) (*pipeline.Tree, *pipeline.Tree, error) {
	if f.baseDir != "" || f.headDir != "" {
		if f.baseDir == "" || f.headDir == "" {
			return nil, nil, fmt.Errorf("--base-dir and --head-dir go together")
		}
		b, err := pipeline.CopyDir(f.baseDir)
		if err != nil {
			return nil, nil, err
		}
		h, err := pipeline.CopyDir(f.headDir)
		if err != nil {
			b.Close()
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
	bh, err := repo.Resolve(f.base)
	if err != nil {
		return nil, nil, err
	}
	hh, err := repo.Resolve(f.head)
	if err != nil {
		return nil, nil, err
	}
	if !f.noMergeBase {
		if bh, err = repo.MergeBase(bh, hh); err != nil {
			return nil, nil, err
		}
	}
	b, err := pipeline.Checkout(repo, bh)
	if err != nil {
		return nil, nil, err
	}
	h, err := pipeline.Checkout(repo, hh)
	if err != nil {
		b.Close()
		return nil, nil, err
	}
	return b, h, nil
}
