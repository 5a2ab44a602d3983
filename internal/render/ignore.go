package render

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fluxcd/pkg/sourceignore"
)

// ApplySourceIgnore removes from dir, in place, what source-controller leaves out of the
// artifact: symlinks (it archives regular files only, source-controller#191), the defaults
// of fluxcd/pkg/sourceignore (VCS, CI, images and archives, .sops.yaml...), every
// .sourceignore in the tree and the extra patterns of GitRepository.spec.ignore (one per
// line). dir must be a scratch copy.
func ApplySourceIgnore(dir, extra string) error {
	ps, err := sourceignore.LoadIgnorePatterns(dir, nil)
	if err != nil {
		return err
	}
	if extra != "" {
		ps = append(ps, sourceignore.ReadPatterns(strings.NewReader(extra), nil)...)
	}
	m := sourceignore.NewDefaultMatcher(ps, nil)
	var drop []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&fs.ModeSymlink != 0 {
			drop = append(drop, p)
			return nil
		}
		if m.Match(strings.Split(filepath.ToSlash(rel), "/"), d.IsDir()) {
			drop = append(drop, p)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, p := range drop {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	return nil
}
