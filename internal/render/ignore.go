package render

import (
	"bytes"
	"path"
	"strings"

	"github.com/fluxcd/pkg/sourceignore"
	"github.com/fluxcd/pkg/sourceignore/gitignore"
)

// ignored returns snap less what source-controller leaves out of the artifact: symlinks
// (it archives regular files only, source-controller#191), the defaults of
// fluxcd/pkg/sourceignore (VCS, CI, images and archives, .sops.yaml...), every
// .sourceignore in the tree (each for its folder, as sourceignore.LoadIgnorePatterns reads
// them) and extra, the patterns of GitRepository.spec.ignore (one per line).
func ignored(snap *snapshot, extra string) *snapshot {
	ps := ignorePatterns(snap, ".", nil)
	if extra != "" {
		ps = append(ps, sourceignore.ReadPatterns(strings.NewReader(extra), nil)...)
	}
	m := sourceignore.NewDefaultMatcher(ps, nil)
	return snap.without(func(rel string, dir bool) bool {
		return m.Match(strings.Split(rel, "/"), dir)
	})
}

// ignorePatterns is sourceignore.LoadIgnorePatterns over the snapshot: dir's .sourceignore,
// then each subfolder's but .git, in name order, each with its folder as domain.
func ignorePatterns(snap *snapshot, dir string, domain []string) []gitignore.Pattern {
	dom := append([]string{}, domain...)
	var ps []gitignore.Pattern
	if data, ok := snap.read(path.Join(dir, sourceignore.IgnoreFile)); ok {
		ps = sourceignore.ReadPatterns(bytes.NewReader(data), dom)
	}
	for _, n := range snap.names[dir] {
		if rel := path.Join(dir, n); snap.types[rel].IsDir() && n != ".git" {
			ps = append(ps, ignorePatterns(snap, rel, append(dom, n))...)
		}
	}
	return ps
}
