package fsys

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
	DepStat depOp = 's' // Exists, IsDir, CleanedAbs: absent, file or folder
	DepRead depOp = 'r' // ReadFile, Open: the content
	depList depOp = 'l' // ReadDir: the entry names
	depGlob depOp = 'g' // Glob: the matches of a pattern
	DepTree depOp = 't' // Walk: every name and content below
)

// Dep is one input of a build: an operation on a path relative to the tree root
// (slash-separated; a Glob keeps its pattern).
type Dep struct {
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
	deps    map[Dep]bool
	outside bool
}

// NewRecordFS wraps fs, whose root is the absolute folder abs, recording what a build reads.
func NewRecordFS(fs filesys.FileSystem, abs string) *recordFS {
	return &recordFS{FileSystem: fs, abs: abs, deps: map[Dep]bool{}}
}

func (fs *recordFS) note(op depOp, path string) {
	rel, err := filepath.Rel(fs.abs, filepath.Clean(path))
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		fs.outside = true
		return
	}
	fs.deps[Dep{op, filepath.ToSlash(rel)}] = true
}

func (fs *recordFS) Exists(path string) bool {
	fs.note(DepStat, path)
	return fs.FileSystem.Exists(path)
}
func (fs *recordFS) IsDir(path string) bool { fs.note(DepStat, path); return fs.FileSystem.IsDir(path) }

func (fs *recordFS) CleanedAbs(path string) (filesys.ConfirmedDir, string, error) {
	fs.note(DepStat, path)
	return fs.FileSystem.CleanedAbs(path)
}

func (fs *recordFS) ReadFile(path string) ([]byte, error) {
	fs.note(DepRead, path)
	return fs.FileSystem.ReadFile(path)
}

func (fs *recordFS) Open(path string) (filesys.File, error) {
	fs.note(DepRead, path)
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
	fs.note(DepTree, path)
	return fs.FileSystem.Walk(path, walkFn)
}

// Recorded returns the deps in a stable order, and false when the build looked outside
// the tree (such a build is never reused).
func (fs *recordFS) Recorded() ([]Dep, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]Dep, 0, len(fs.deps))
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

// Fingerprints computes, once per tree, the state of a dep: a short digest of what the
// operation would see there. Equal fingerprints mean the operation returns the same.
type Fingerprints struct {
	snap *graph.Snapshot
	mu   sync.Mutex
	m    map[Dep]fingerprint
}

type fingerprint struct {
	Digest string
	Size   int64 // bytes read to compute it: the input size of a build
}

// NewFingerprints returns an empty set of fingerprints over snap.
func NewFingerprints(snap *graph.Snapshot) *Fingerprints {
	return &Fingerprints{snap: snap, m: map[Dep]fingerprint{}}
}

// Of returns the fingerprint of d in the snapshot, computed once.
func (f *Fingerprints) Of(d Dep) fingerprint {
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
func (f *Fingerprints) compute(d Dep) fingerprint {
	s := f.snap
	if d.Op == depGlob {
		matches, _ := SrcFS{Snap: s}.Glob(filepath.Join(s.Root, filepath.FromSlash(d.Path)))
		for i, m := range matches {
			matches[i] = s.Rel(m)
		}
		return fingerprint{Digest: graph.Digest([]byte(strings.Join(matches, "\x00")))}
	}
	st := s.State(d.Path)
	switch {
	case d.Op == DepStat:
		return fingerprint{Digest: st}
	case d.Op == DepRead && st != "file":
		return fingerprint{Digest: st}
	case d.Op == DepRead:
		return f.file(d.Path)
	case d.Op == depList && st == "dir":
		return fingerprint{Digest: graph.Digest([]byte(strings.Join(s.Names[d.Path], "\x00")))}
	case d.Op == depList:
		return fingerprint{Digest: st}
	case st == "absent":
		return fingerprint{Digest: st}
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
			size += fp.Size
			h.Write([]byte(fp.Digest))
		}
		if typ.IsDir() {
			for _, n := range s.Names[rel] {
				walk(path.Join(rel, n), path.Join(name, n))
			}
		}
	}
	walk(d.Path, ".")
	return fingerprint{Digest: hex.EncodeToString(h.Sum(nil)), Size: size}
}

// file fingerprints the regular file rel; a refused one has no content to see.
func (f *Fingerprints) file(rel string) fingerprint {
	data, ok := f.snap.Read(rel)
	if !ok {
		return fingerprint{Digest: "refused"}
	}
	return fingerprint{Digest: f.snap.Digest(rel), Size: int64(len(data))}
}
