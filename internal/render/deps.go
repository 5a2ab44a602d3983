package render

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"
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
	abs  string
	snap *snapshot // what scan saw; nil: ask the disk
	mu   sync.Mutex
	m    map[dep]fingerprint
}

type fingerprint struct {
	digest string
	size   int64 // bytes read to compute it: the input size of a build
}

func newFingerprints(abs string, snap *snapshot) *fingerprints {
	return &fingerprints{abs: abs, snap: snap, m: map[dep]fingerprint{}}
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

func (f *fingerprints) compute(d dep) fingerprint {
	if f.snap != nil && d.Op != depGlob && f.snap.knows(d.Path) {
		return f.fromSnapshot(d)
	}
	p := filepath.Join(f.abs, filepath.FromSlash(d.Path))
	switch d.Op {
	case depStat:
		return fingerprint{digest: statState(p)}
	case depRead:
		if st := statState(p); st != "file" {
			return fingerprint{digest: st}
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return fingerprint{digest: "error"}
		}
		return fingerprint{digest: digest(data), size: int64(len(data))}
	case depList:
		entries, err := os.ReadDir(p)
		if err != nil {
			return fingerprint{digest: statState(p)}
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return fingerprint{digest: digest([]byte(strings.Join(names, "\x00")))}
	case depGlob:
		matches, _ := filepath.Glob(p)
		for i, m := range matches {
			matches[i], _ = filepath.Rel(f.abs, m)
		}
		return fingerprint{digest: digest([]byte(strings.Join(matches, "\x00")))}
	default:
		return f.tree(p)
	}
}

// tree digests every name and file content below p (Walk sees all of them).
func (f *fingerprints) tree(p string) fingerprint {
	h := sha256.New()
	var size int64
	err := filepath.WalkDir(p, func(q string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(p, q)
		h.Write([]byte(rel + "\x00" + e.Type().String() + "\x00"))
		if e.Type().IsRegular() {
			data, err := os.ReadFile(q)
			if err != nil {
				return err
			}
			size += int64(len(data))
			h.Write([]byte(digest(data)))
		}
		return nil
	})
	if err != nil {
		return fingerprint{digest: statState(p)}
	}
	return fingerprint{digest: hex.EncodeToString(h.Sum(nil)), size: size}
}

// fromSnapshot is compute answered from what scan saw, reading only files it did not keep.
func (f *fingerprints) fromSnapshot(d dep) fingerprint {
	s := f.snap
	st := s.state(d.Path)
	switch {
	case d.Op == depStat:
		return fingerprint{digest: st}
	case d.Op == depRead && st != "file":
		return fingerprint{digest: st}
	case d.Op == depRead:
		return f.file(d.Path)
	case d.Op == depList && st == "dir":
		return fingerprint{digest: digest([]byte(strings.Join(s.names[d.Path], "\x00")))}
	case d.Op == depList:
		return fingerprint{digest: st}
	}
	// depTree: as tree(), in filepath.WalkDir order.
	if st == "absent" {
		return fingerprint{digest: st}
	}
	for u := range s.unwalked {
		if u == d.Path || strings.HasPrefix(u, d.Path+"/") || d.Path == "." {
			return f.tree(filepath.Join(f.abs, filepath.FromSlash(d.Path)))
		}
	}
	h := sha256.New()
	var size int64
	var walk func(rel, name string) bool
	walk = func(rel, name string) bool {
		typ := s.types[rel]
		h.Write([]byte(name + "\x00" + typ.String() + "\x00"))
		if typ.IsRegular() {
			fp := f.file(rel)
			if fp.digest == "error" {
				return false
			}
			size += fp.size
			h.Write([]byte(fp.digest))
		}
		if typ.IsDir() {
			for _, n := range s.names[rel] {
				if !walk(path.Join(rel, n), path.Join(name, n)) {
					return false
				}
			}
		}
		return true
	}
	if !walk(d.Path, ".") {
		return fingerprint{digest: st}
	}
	return fingerprint{digest: hex.EncodeToString(h.Sum(nil)), size: size}
}

// file digests the regular file rel: from the snapshot's content when scan kept it.
func (f *fingerprints) file(rel string) fingerprint {
	data, ok := f.snap.data[rel]
	if !ok {
		var err error
		if data, err = os.ReadFile(filepath.Join(f.abs, filepath.FromSlash(rel))); err != nil {
			return fingerprint{digest: "error"}
		}
	}
	return fingerprint{digest: digest(data), size: int64(len(data))}
}

// statState is what Exists/IsDir see. A symlink is a state of its own: the guards refuse
// it, so a build that reads a path never sees one there.
func statState(p string) string {
	st, err := os.Lstat(p)
	switch {
	case err != nil:
		return "absent"
	case st.Mode()&os.ModeSymlink != 0:
		return "symlink"
	case st.IsDir():
		return "dir"
	case st.Mode().IsRegular():
		return "file"
	default:
		return "other"
	}
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}
