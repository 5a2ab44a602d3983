package fsys

import (
	"bytes"
	"path"
	"strings"
	"sync"

	"github.com/fluxcd/pkg/sourceignore"
	"github.com/fluxcd/pkg/sourceignore/gitignore"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// Ignored returns snap less what source-controller leaves out when it packs the artifact
// (GitRepository reconciler, storage.SourceIgnoreFilter and Storage.Archive):
//   - symlinks and anything not a regular file or folder (source-controller#191);
//   - the patterns of every .sourceignore in the tree (each for its folder, as
//     sourceignore.LoadIgnorePatterns reads them, through symlinks) and extra, the
//     patterns of GitRepository.spec.ignore (one per line), after the VCS patterns;
//   - without any such pattern, fluxcd/pkg/sourceignore's defaults (VCS, CI, images and
//     archives, .sops.yaml...): spec.ignore "overrides the default exclusion list".
//
// Archive matches every entry on its own and does not skip the content of a folder it
// leaves out, so a negation can keep a file below an ignored folder; the folder then
// exists in the artifact as the file's parent.
//
// The verdict on a path is a function of the path and the patterns, so keep (when not
// nil) returns the verdicts kept for each set of patterns across renders.
func Ignored(snap *graph.Snapshot, extra string, keep VerdictStore) *graph.Snapshot {
	var sig strings.Builder
	ps := ignorePatterns(snap, ".", nil, &sig)
	if extra != "" {
		ps = append(ps, sourceignore.ReadPatterns(strings.NewReader(extra), nil)...)
	}
	m := sourceignore.NewDefaultMatcher(nil, nil)
	if len(ps) > 0 {
		m = sourceignore.NewMatcher(append(sourceignore.VCSPatterns(nil), ps...))
	}
	var verdicts *Verdicts
	if keep != nil {
		verdicts = keep(graph.Digest([]byte(sig.String()+"\x00"+extra)), len(snap.Types))
	}
	out := snap.Without(func(rel string, dir bool) bool {
		return verdicts.of(rel, dir, func() bool { return m.Match(strings.Split(rel, "/"), dir) })
	})
	verdicts.done()
	return out
}

// ignorePatterns is sourceignore.LoadIgnorePatterns over the snapshot: dir's .sourceignore,
// then each subfolder's but .git, in name order, each with its folder as domain. sig gets
// the path and content digest of each file read.
func ignorePatterns(snap *graph.Snapshot, dir string, domain []string, sig *strings.Builder) []gitignore.Pattern {
	dom := append([]string{}, domain...)
	var ps []gitignore.Pattern
	p := path.Join(dir, sourceignore.IgnoreFile)
	if data, read, ok := snap.ReadFollowing(p); ok {
		ps = sourceignore.ReadPatterns(bytes.NewReader(data), dom)
		sig.WriteString(p + "\x00" + read + "\x00" + snap.Digest(read) + "\x00")
	}
	for _, n := range snap.Names[dir] {
		if rel := path.Join(dir, n); snap.Types[rel].IsDir() && n != ".git" {
			ps = append(ps, ignorePatterns(snap, rel, append(dom, n), sig)...)
		}
	}
	return ps
}

// VerdictStore returns the Verdicts kept for the ignore patterns whose digest is sum,
// making room for about paths of them; nil keeps none.
type VerdictStore func(sum string, paths int) *Verdicts

// NewVerdicts returns empty Verdicts with room for about paths of them.
func NewVerdicts(paths int) *Verdicts { return &Verdicts{m: make(map[string]bool, paths)} }

// NewStoredVerdicts returns Verdicts holding stored (a map save was given, read back from a
// store; nil: none) with room for about paths more. After an Ignored that added verdicts it
// calls save, when not nil, with the verdicts on every path asked about so far, so the store
// can keep them for another process (a verdict is a function of the path and the patterns,
// which the store's key names) without keeping the paths of old trees for ever.
func NewStoredVerdicts(stored map[string]bool, paths int, save func(all map[string]bool)) *Verdicts {
	m := make(map[string]bool, len(stored)+paths)
	for k, v := range stored {
		m[k] = v
	}
	return &Verdicts{m: m, save: save, used: make(map[string]bool, paths)}
}

// Verdicts remembers whether paths are ignored under one set of patterns. Safe for
// concurrent use.
type Verdicts struct {
	mu    sync.Mutex
	m     map[string]bool // path, with "/" appended for a folder → ignored
	added bool            // m has verdicts save has not been given
	save  func(map[string]bool)
	used  map[string]bool // with save: the keys of m asked about
}

// done gives save a copy of every verdict when some were added since the last call; v may
// be nil.
func (v *Verdicts) done() {
	if v == nil || v.save == nil {
		return
	}
	v.mu.Lock()
	if !v.added {
		v.mu.Unlock()
		return
	}
	all := make(map[string]bool, len(v.used))
	for k := range v.used {
		all[k] = v.m[k]
	}
	v.added = false
	v.mu.Unlock()
	v.save(all)
}

// of returns the verdict on rel, computing it with match the first time; v may be nil.
func (v *Verdicts) of(rel string, dir bool, match func() bool) bool {
	if v == nil {
		return match()
	}
	k := rel
	if dir {
		k += "/"
	}
	v.mu.Lock()
	got, ok := v.m[k]
	if v.used != nil {
		v.used[k] = true
	}
	v.mu.Unlock()
	if ok {
		return got
	}
	got = match()
	v.mu.Lock()
	v.m[k] = got
	v.added = true
	v.mu.Unlock()
	return got
}
