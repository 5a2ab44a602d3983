package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/render"
)

// tree is one side of a review written to a scratch directory.
type tree struct {
	dir     string
	rev     string
	cleanup func()
}

// checkoutRev writes rev's tree into a scratch directory with source-ignore rules applied.
func checkoutRev(repo *gitrepo.Repo, rev string) (*tree, error) {
	h, err := repo.Resolve(rev)
	if err != nil {
		return nil, err
	}
	return checkoutHash(repo, h.String())
}

func checkoutHash(repo *gitrepo.Repo, sha string) (*tree, error) {
	h, err := repo.Resolve(sha)
	if err != nil {
		return nil, err
	}
	t, err := repo.Checkout(h, "")
	if err != nil {
		return nil, err
	}
	if err := render.ApplySourceIgnore(t.Dir, ""); err != nil {
		t.Close()
		return nil, fmt.Errorf("apply .sourceignore: %w", err)
	}
	return &tree{dir: t.Dir, rev: h.String(), cleanup: func() { t.Close() }}, nil
}

// copyDir copies a plain directory tree to scratch space (symlinks are not followed) and
// applies source-ignore rules there, leaving the user's directory untouched.
func copyDir(src string) (*tree, error) {
	st, err := os.Stat(src)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", src)
	}
	dst, err := os.MkdirTemp("", "tiergate-dir-")
	if err != nil {
		return nil, err
	}
	clean := func() { os.RemoveAll(dst) }
	err = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(target, data, 0o644)
		}
		return nil // symlinks and devices are not part of the artifact
	})
	if err == nil {
		err = render.ApplySourceIgnore(dst, "")
	}
	if err != nil {
		clean()
		return nil, fmt.Errorf("copy %s: %w", src, err)
	}
	abs, _ := filepath.Abs(src)
	return &tree{dir: dst, rev: abs, cleanup: clean}, nil
}
