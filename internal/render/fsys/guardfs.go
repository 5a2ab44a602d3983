package fsys

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// GuardFS is the filesystem kustomize builds through, above the remote and in-memory
// layers. It refuses, before the artifact (srcFS) is asked, any path outside the source
// root, as kustomize-controller's secure filesystem does, and any path the Source refused
// (symlinks, over-size files, alias bombs), and it caps the
// bytes one build reads. The first refusal is kept so that the build error can name the
// kustomization line that asked for the path rather than kustomize's wrapped message.
type GuardFS struct {
	filesys.FileSystem
	snap      *graph.Snapshot
	abs, root string // the tree and the source root, absolute
	maxBytes  int64
	maxFiles  int
	maxDocs   int

	mu     sync.Mutex
	read   int64
	files  int
	docs   int
	kfiles []string // kustomization files read, in order
	first  *Refusal
}

// NewGuardFS returns the guard over fs for the builds of snap (the tree at abs) whose
// source root is root, both absolute, within l's build bounds (MaxBuildBytes,
// MaxBuildFiles, MaxBuildDocuments).
func NewGuardFS(fs filesys.FileSystem, snap *graph.Snapshot, abs, root string, l graph.Limits) *GuardFS {
	return &GuardFS{FileSystem: fs, snap: snap, abs: abs, root: root, maxBytes: l.MaxBuildBytes, maxFiles: l.MaxBuildFiles, maxDocs: l.MaxBuildDocuments}
}

// KustomizationFiles lists the kustomization files the build read, in order.
func (g *GuardFS) KustomizationFiles() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.kfiles
}

// check returns why path may not be used, or nil.
func (g *GuardFS) check(path string) *Refusal {
	a, err := filepath.Abs(path)
	if err != nil {
		return &Refusal{path: path, reason: err.Error()}
	}
	if a != g.root && !strings.HasPrefix(a, g.root+string(filepath.Separator)) {
		return &Refusal{path: a, reason: "it resolves outside the source root, which kustomize-controller's secure filesystem refuses"}
	}
	rel := graph.RelPath(g.abs, a)
	for p := rel; p != "." && p != ""; p = filepath.ToSlash(filepath.Dir(p)) {
		if r, ok := g.snap.Refused[p]; ok {
			return &Refusal{path: a, reason: r}
		}
	}
	return nil
}

// deny records r as the build's first refusal and returns it as an error.
func (g *GuardFS) deny(r *Refusal) error {
	g.mu.Lock()
	if g.first == nil {
		g.first = r
	}
	g.mu.Unlock()
	return fmt.Errorf("refused %s: %s", graph.RelPath(g.root, r.path), r.reason)
}

// ReadFile reads path unless check refuses it or it is an alias bomb, counting its bytes,
// files and YAML documents against the build's bounds.
func (g *GuardFS) ReadFile(path string) ([]byte, error) {
	if r := g.check(path); r != nil {
		return nil, g.deny(r)
	}
	data, err := g.FileSystem.ReadFile(path)
	if why := AliasBomb(data); why != "" {
		return nil, g.deny(&Refusal{path: path, reason: graph.RelPath(g.abs, path) + why})
	}
	g.mu.Lock()
	g.read += int64(len(data))
	g.files++
	g.docs += 1 + bytes.Count(data, []byte("\n---"))
	overBytes, overFiles, overDocs := g.read > g.maxBytes, g.files > g.maxFiles, g.docs > g.maxDocs
	if err == nil && IsKustomizationFile(path) {
		g.kfiles = append(g.kfiles, path)
	}
	g.mu.Unlock()
	switch {
	case overBytes:
		return nil, g.deny(&Refusal{path: path, reason: fmt.Sprintf("the build has read more than tiergate's limit of %d bytes (--max-build-bytes); a base included many times over multiplies its size", g.maxBytes)})
	case overDocs:
		return nil, g.deny(&Refusal{path: path, reason: fmt.Sprintf("the build has read more than tiergate's limit of %d YAML documents (--max-build-documents); kustomize's time grows with their square", g.maxDocs)})
	case overFiles:
		return nil, g.deny(&Refusal{path: path, reason: fmt.Sprintf("the build has read more than tiergate's limit of %d files (--max-build-files); a base included many times over multiplies its files", g.maxFiles)})
	}
	return data, err
}

// Open is filesys.FileSystem's Open, refusing what check refuses.
func (g *GuardFS) Open(path string) (filesys.File, error) {
	if r := g.check(path); r != nil {
		return nil, g.deny(r)
	}
	return g.FileSystem.Open(path)
}

// CleanedAbs is filesys.FileSystem's CleanedAbs, refusing what check refuses.
func (g *GuardFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	if r := g.check(path); r != nil {
		return "", "", g.deny(r)
	}
	return g.FileSystem.CleanedAbs(path)
}

// Exists reports false for what check refuses.
func (g *GuardFS) Exists(path string) bool { return g.check(path) == nil && g.FileSystem.Exists(path) }

// IsDir reports false for what check refuses.
func (g *GuardFS) IsDir(path string) bool { return g.check(path) == nil && g.FileSystem.IsDir(path) }

// ReadDir is filesys.FileSystem's ReadDir, refusing what check refuses.
func (g *GuardFS) ReadDir(path string) ([]string, error) {
	if r := g.check(path); r != nil {
		return nil, g.deny(r)
	}
	return g.FileSystem.ReadDir(path)
}

// Glob is filesys.FileSystem's Glob, leaving out the matches check refuses.
func (g *GuardFS) Glob(pattern string) ([]string, error) {
	matches, err := g.FileSystem.Glob(pattern)
	var out []string
	for _, m := range matches {
		if g.check(m) == nil {
			out = append(out, m)
		}
	}
	return out, err
}

// Walk is filesys.FileSystem's Walk, refusing what check refuses.
func (g *GuardFS) Walk(path string, fn filepath.WalkFunc) error {
	if r := g.check(path); r != nil {
		return g.deny(r)
	}
	return g.FileSystem.Walk(path, func(p string, info os.FileInfo, err error) error {
		if r := g.check(p); r != nil {
			return g.deny(r)
		}
		return fn(p, info, err)
	})
}

// RefusalError is the build's first refusal as a BuildError at the line of the
// kustomization file that lists the refused path; nil when nothing was refused.
func (g *GuardFS) RefusalError(dir string) *graph.BuildError {
	g.mu.Lock()
	r, kfiles := g.first, g.kfiles
	g.mu.Unlock()
	if r == nil {
		return nil
	}
	return RefusalBuildError(g.snap, dir, r, kfiles)
}

// RefusalBuildError locates r at the entry naming it in the latest of kfiles that does,
// else at the first line of dir's kustomization file. A refusal by one of tiergate's
// bounds (graph.IsLimit) is marked Limit: Flux would build the file.
func RefusalBuildError(snap *graph.Snapshot, dir string, r *Refusal, kfiles []string) *graph.BuildError {
	abs := snap.Root
	for i := len(kfiles) - 1; i >= 0; i-- {
		if line, entry := entryLine(snap, kfiles[i], r.path); line > 0 {
			return &graph.BuildError{Message: fmt.Sprintf("refused %q: %s", entry, r.reason), File: graph.RelPath(abs, kfiles[i]), Line: line, Limit: graph.IsLimit(r.reason)}
		}
	}
	be := &graph.BuildError{Message: fmt.Sprintf("refused %s: %s", graph.RelPath(abs, r.path), r.reason), File: graph.RelPath(abs, dir), Line: 1, Limit: graph.IsLimit(r.reason)}
	if k := KustomizationFileLstat(snap, dir); k != "" {
		be.File = graph.RelPath(abs, k)
	} else if rel := graph.RelPath(abs, r.path); snap.State(rel) == "file" || snap.Refused[rel] != "" {
		be.File = rel // a generated kustomization lists no entry: the refused file is the place
	}
	return be
}

// entryLine returns the 1-based line of kfile, and the entry as written, whose path
// resolves to target (an absolute path) or to a folder above it; 0 when none does.
// kfile is read from the artifact: kustomize may have read a rewritten copy, with the
// same entries.
func entryLine(snap *graph.Snapshot, kfile, target string) (int, string) {
	data, ok := snap.ReadAbs(kfile)
	if !ok {
		return 0, ""
	}
	base := filepath.Dir(kfile)
	lines := strings.Split(string(data), "\n")
	for _, exact := range []bool{true, false} {
		for i, l := range lines {
			for _, tok := range strings.FieldsFunc(l, func(r rune) bool { return unicode.IsSpace(r) || strings.ContainsRune("=:,[]{}'\"", r) }) {
				p := tok
				if !filepath.IsAbs(p) {
					p = filepath.Join(base, p)
				}
				p = filepath.Clean(p)
				if p == target || (!exact && p != base && strings.HasPrefix(target, p+string(filepath.Separator))) {
					return i + 1, tok
				}
			}
		}
	}
	return 0, ""
}

// Refusal is why a build may not read a path.
type Refusal struct {
	path   string // absolute, cleaned
	reason string
}

// RefusedUnder returns the first refused YAML file below dir that the generator would
// read when dir has no kustomization file of its own.
func RefusedUnder(snap *graph.Snapshot, dir string) *Refusal {
	abs, refused := snap.Root, snap.Refused
	if k := KustomizationFileLstat(snap, dir); k != "" {
		if r, ok := refused[graph.RelPath(abs, k)]; ok {
			return &Refusal{path: k, reason: r}
		}
		return nil
	}
	prefix := graph.RelPath(abs, dir) + "/"
	var hits []string
	for rel := range refused {
		if ext := filepath.Ext(rel); strings.HasPrefix(rel, prefix) && (ext == ".yaml" || ext == ".yml") {
			hits = append(hits, rel)
		}
	}
	if len(hits) == 0 {
		return nil
	}
	sort.Strings(hits)
	return &Refusal{path: filepath.Join(abs, filepath.FromSlash(hits[0])), reason: refused[hits[0]]}
}

// KustomizationFileLstat is render's kustomizationFile without following symlinks: it returns the
// name present in dir even when it is a symlink, so that a refused one is reported.
func KustomizationFileLstat(snap *graph.Snapshot, dir string) string {
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		if snap.State(snap.Rel(filepath.Join(dir, n))) != "absent" {
			return filepath.Join(dir, n)
		}
	}
	return ""
}
