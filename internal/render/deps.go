package render

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// depOp is what a build asked of the filesystem about one path.
type depOp byte

const (
	depStat depOp = 's' // Exists, IsDir, CleanedAbs: absent, file or folder
	depRead depOp = 'r' // ReadFile, Open: the content
	depList depOp = 'l' // ReadDir: the entry names
	depGlob depOp = 'g' // Glob: the matches of a pattern
	depTree depOp = 't' // Walk: every name and content below
)

// dep is one input of a build: an operation on a path relative to the tree root
// (slash-separated; a Glob keeps its pattern).
type dep struct {
	Op   depOp
	Path string
}

// recordFS passes every call to the wrapped filesystem and records, as deps, what the
// build read: the result of a build is a function of its spec, its generated
// kustomization and the state of these paths, which is what makes reuse exact.
type recordFS struct {
	filesys.FileSystem
	abs string // the tree root; paths outside it make the build unreusable

	mu      sync.Mutex
	deps    map[dep]bool
	outside bool
}

func newRecordFS(fs filesys.FileSystem, abs string) *recordFS {
	return &recordFS{FileSystem: fs, abs: abs, deps: map[dep]bool{}}
}

func (fs *recordFS) note(op depOp, path string) {
	rel, err := filepath.Rel(fs.abs, filepath.Clean(path))
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		fs.outside = true
		return
	}
	fs.deps[dep{op, filepath.ToSlash(rel)}] = true
}

func (fs *recordFS) Exists(path string) bool {
	fs.note(depStat, path)
	return fs.FileSystem.Exists(path)
}
func (fs *recordFS) IsDir(path string) bool { fs.note(depStat, path); return fs.FileSystem.IsDir(path) }

func (fs *recordFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	fs.note(depStat, path)
	return fs.FileSystem.CleanedAbs(path)
}

func (fs *recordFS) ReadFile(path string) ([]byte, error) {
	fs.note(depRead, path)
	return fs.FileSystem.ReadFile(path)
}

func (fs *recordFS) Open(path string) (filesys.File, error) {
	fs.note(depRead, path)
	return fs.FileSystem.Open(path)
}

func (fs *recordFS) ReadDir(path string) ([]string, error) {
	fs.note(depList, path)
	return fs.FileSystem.ReadDir(path)
}

func (fs *recordFS) Glob(pattern string) ([]string, error) {
	fs.note(depGlob, pattern)
	return fs.FileSystem.Glob(pattern)
}

func (fs *recordFS) Walk(path string, walkFn filepath.WalkFunc) error {
	fs.note(depTree, path)
	return fs.FileSystem.Walk(path, walkFn)
}

// recorded returns the deps in a stable order, and false when the build looked outside
// the tree (such a build is never reused).
func (fs *recordFS) recorded() ([]dep, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]dep, 0, len(fs.deps))
	for d := range fs.deps {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Op < out[j].Op
	})
	return out, !fs.outside
}

// fingerprints computes, once per tree, the state of a dep: a short digest of what the
// operation would see there. Equal fingerprints mean the operation returns the same.
type fingerprints struct {
	snap *graph.Snapshot
	mu   sync.Mutex
	m    map[dep]fingerprint
}

type fingerprint struct {
	digest string
	size   int64 // bytes read to compute it: the input size of a build
}

func newFingerprints(snap *graph.Snapshot) *fingerprints {
	return &fingerprints{snap: snap, m: map[dep]fingerprint{}}
}

func (f *fingerprints) of(d dep) fingerprint {
	f.mu.Lock()
	fp, ok := f.m[d]
	f.mu.Unlock()
	if ok {
		return fp
	}
	fp = f.compute(d)
	f.mu.Lock()
	f.m[d] = fp
	f.mu.Unlock()
	return fp
}

// compute answers from the snapshot, which is all a build can see (srcFS).
func (f *fingerprints) compute(d dep) fingerprint {
	s := f.snap
	if d.Op == depGlob {
		matches, _ := srcFS{s: s}.Glob(filepath.Join(s.Root, filepath.FromSlash(d.Path)))
		for i, m := range matches {
			matches[i] = s.Rel(m)
		}
		return fingerprint{digest: graph.Digest([]byte(strings.Join(matches, "\x00")))}
	}
	st := s.State(d.Path)
	switch {
	case d.Op == depStat:
		return fingerprint{digest: st}
	case d.Op == depRead && st != "file":
		return fingerprint{digest: st}
	case d.Op == depRead:
		return f.file(d.Path)
	case d.Op == depList && st == "dir":
		return fingerprint{digest: graph.Digest([]byte(strings.Join(s.Names[d.Path], "\x00")))}
	case d.Op == depList:
		return fingerprint{digest: st}
	case st == "absent":
		return fingerprint{digest: st}
	}
	// depTree: every name, type and content below, in walk order.
	h := sha256.New()
	var size int64
	var walk func(rel, name string)
	walk = func(rel, name string) {
		typ := s.Types[rel]
		h.Write([]byte(name + "\x00" + typ.String() + "\x00"))
		if typ.IsRegular() {
			fp := f.file(rel)
			size += fp.size
			h.Write([]byte(fp.digest))
		}
		if typ.IsDir() {
			for _, n := range s.Names[rel] {
				walk(path.Join(rel, n), path.Join(name, n))
			}
		}
	}
	walk(d.Path, ".")
	return fingerprint{digest: hex.EncodeToString(h.Sum(nil)), size: size}
}

// file fingerprints the regular file rel; a refused one has no content to see.
func (f *fingerprints) file(rel string) fingerprint {
	data, ok := f.snap.Read(rel)
	if !ok {
		return fingerprint{digest: "refused"}
	}
	return fingerprint{digest: f.snap.Digest(rel), size: int64(len(data))}
}
