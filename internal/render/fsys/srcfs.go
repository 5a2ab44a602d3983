package fsys

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// SrcFS is a snapshot as kustomize's on-disk filesystem would show it at the snapshot's
// root: the same answers and the same error texts (os.PathError). It is the bottom layer of
// every build, where kustomize-controller has its secure on-disk filesystem; guardFS above
// it confines builds to the source root, as that one does. With w, files can be written
// into existing folders (the generated kustomization file, fetched remote files), as the
// controller writes them into its copy of the artifact; the snapshot is never changed.
type SrcFS struct {
	Snap    *graph.Snapshot
	Written *Written // nil: read-only
}

// Written holds the files written over a snapshot, by repo-relative path.
type Written struct {
	mu    sync.RWMutex
	files map[string][]byte
}

// file returns what was written at rel.
func (w *Written) file(rel string) ([]byte, bool) {
	if w == nil {
		return nil, false
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	data, ok := w.files[rel]
	return data, ok
}

// typeOf is the type of rel, a written file shadowing the snapshot's entry.
func (f SrcFS) typeOf(rel string) (fs.FileMode, bool) {
	if _, ok := f.Written.file(rel); ok {
		return 0, true
	}
	t, ok := f.Snap.Types[rel]
	return t, ok
}

// dataOf is the content of the regular file rel.
func (f SrcFS) dataOf(rel string) ([]byte, bool) {
	if data, ok := f.Written.file(rel); ok {
		return data, true
	}
	return f.Snap.Read(rel)
}

// namesOf lists the folder rel, written files included, sorted as a folder read is.
func (f SrcFS) namesOf(rel string) []string {
	names := append([]string(nil), f.Snap.Names[rel]...)
	if f.Written == nil {
		return names
	}
	n := len(names)
	f.Written.mu.RLock()
	for p := range f.Written.files {
		if path.Dir(p) == rel && !slices.Contains(names, path.Base(p)) {
			names = append(names, path.Base(p))
		}
	}
	f.Written.mu.RUnlock()
	if len(names) > n { // a new file: the snapshot's names are sorted already
		sort.Strings(names)
	}
	return names
}

var errReadOnly = errors.New("the source artifact is read-only")

// lookup returns the type of the absolute path p; err is lstat's error where a component
// is missing or not a folder.
func (f SrcFS) lookup(p string) (fs.FileMode, error) {
	p = filepath.Clean(p)
	rel := f.Snap.Rel(p)
	if rel == ".." || strings.HasPrefix(rel, "../") || !f.Snap.Knows(rel) {
		return 0, &fs.PathError{Op: "lstat", Path: p, Err: syscall.ENOENT}
	}
	// The first missing component is the one lstat reports.
	cur := "."
	for _, elem := range strings.Split(rel, "/") {
		if rel == "." {
			break
		}
		if t, _ := f.typeOf(cur); !t.IsDir() {
			return 0, &fs.PathError{Op: "lstat", Path: filepath.Join(f.Snap.Root, filepath.FromSlash(cur)), Err: syscall.ENOTDIR}
		}
		if cur == "." {
			cur = elem
		} else {
			cur += "/" + elem
		}
		if _, ok := f.typeOf(cur); !ok {
			return 0, &fs.PathError{Op: "lstat", Path: filepath.Join(f.Snap.Root, filepath.FromSlash(cur)), Err: syscall.ENOENT}
		}
	}
	t, _ := f.typeOf(rel)
	return t, nil
}

func (f SrcFS) Create(string) (filesys.File, error) { return nil, errReadOnly }
func (f SrcFS) Mkdir(string) error                  { return errReadOnly }
func (f SrcFS) MkdirAll(string) error               { return errReadOnly }
func (f SrcFS) RemoveAll(string) error              { return errReadOnly }

// WriteFile is os.WriteFile into an existing folder of the snapshot.
func (f SrcFS) WriteFile(p string, data []byte) error {
	if f.Written == nil {
		return errReadOnly
	}
	p = filepath.Clean(p)
	if t, err := f.lookup(p); err == nil && t.IsDir() {
		return &fs.PathError{Op: "open", Path: p, Err: syscall.EISDIR}
	}
	if t, err := f.lookup(filepath.Dir(p)); err != nil || !t.IsDir() {
		return &fs.PathError{Op: "open", Path: p, Err: syscall.ENOENT}
	}
	f.Written.mu.Lock()
	defer f.Written.mu.Unlock()
	if f.Written.files == nil {
		f.Written.files = map[string][]byte{}
	}
	f.Written.files[f.Snap.Rel(p)] = bytes.Clone(data)
	return nil
}

func (f SrcFS) IsDir(p string) bool {
	t, err := f.lookup(p)
	return err == nil && t.IsDir()
}

func (f SrcFS) Exists(p string) bool {
	_, err := f.lookup(p)
	return err == nil
}

func (f SrcFS) ReadFile(p string) ([]byte, error) {
	t, err := f.lookup(p)
	switch {
	case err != nil:
		return nil, &fs.PathError{Op: "open", Path: p, Err: err.(*fs.PathError).Err}
	case t.IsDir():
		return nil, &fs.PathError{Op: "read", Path: p, Err: syscall.EISDIR}
	}
	data, ok := f.dataOf(f.Snap.Rel(filepath.Clean(p)))
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: p, Err: syscall.EACCES}
	}
	return bytes.Clone(data), nil
}

// Open is os.Open: a folder opens, and reading it fails.
func (f SrcFS) Open(p string) (filesys.File, error) {
	if t, err := f.lookup(p); err == nil && t.IsDir() {
		return &srcFile{Reader: bytes.NewReader(nil), readErr: &fs.PathError{Op: "read", Path: p, Err: syscall.EISDIR},
			info: FileInfo{FileName: filepath.Base(p), FileMode: t}}, nil
	}
	data, err := f.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return &srcFile{Reader: bytes.NewReader(data), info: FileInfo{FileName: filepath.Base(p), size: int64(len(data))}}, nil
}

func (f SrcFS) ReadDir(p string) ([]string, error) {
	t, err := f.lookup(p)
	switch {
	case err != nil:
		return nil, &fs.PathError{Op: "open", Path: p, Err: err.(*fs.PathError).Err}
	case !t.IsDir():
		return nil, &fs.PathError{Op: "open", Path: p, Err: syscall.ENOTDIR}
	}
	return f.namesOf(f.Snap.Rel(filepath.Clean(p))), nil
}

// CleanedAbs is fsOnDisk.CleanedAbs: the folder, and the file name when p is a file.
func (f SrcFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", "", err
	}
	t, err := f.lookup(abs)
	if errors.Is(err, syscall.ENOTDIR) {
		err = syscall.ENOTDIR // filepath.EvalSymlinks returns it bare
	}
	if err != nil {
		return "", "", &evalError{path: p, err: err}
	}
	if t.IsDir() {
		return filesys.ConfirmedDir(abs), "", nil
	}
	return filesys.ConfirmedDir(filepath.Dir(abs)), filepath.Base(abs), nil
}

// evalError reads as fsOnDisk's CleanedAbs error.
type evalError struct {
	path string
	err  error
}

func (e *evalError) Error() string {
	return "evalsymlink failure on '" + e.path + "' : " + e.err.Error()
}
func (e *evalError) Unwrap() error { return e.err }

// Glob is filepath.Glob over the snapshot (io/fs.Glob), without hidden files unless the
// pattern names them (fsOnDisk.Glob). Nothing outside the snapshot's root matches.
func (f SrcFS) Glob(pattern string) ([]string, error) {
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, err
	}
	rel := f.Snap.Rel(filepath.Clean(pattern))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return nil, nil
	}
	matches, err := fs.Glob(snapFS(f), rel)
	for i, m := range matches {
		matches[i] = filepath.Join(f.Snap.Root, filepath.FromSlash(m))
	}
	if err != nil || filesys.IsHiddenFilePath(pattern) {
		return matches, err
	}
	return filesys.RemoveHiddenFiles(matches), nil
}

// Walk is filepath.Walk over the snapshot (io/fs.WalkDir, whose order and SkipDir are
// filepath.Walk's).
func (f SrcFS) Walk(root string, fn filepath.WalkFunc) error {
	if _, err := f.lookup(root); err != nil {
		return fn(root, nil, err)
	}
	rel := f.Snap.Rel(filepath.Clean(root))
	return fs.WalkDir(snapFS(f), rel, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, _ := d.Info()
		return fn(filepath.Join(f.Snap.Root, filepath.FromSlash(p)), info, nil)
	})
}

// snapFS is the snapshot as an io/fs file system (slash-separated paths relative to the
// root), for the standard library's Glob and WalkDir; files are not opened through it.
type snapFS SrcFS

func (f snapFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
}

func (f snapFS) Stat(name string) (fs.FileInfo, error) {
	t, ok := SrcFS(f).typeOf(name)
	if !ok || !fs.ValidPath(name) || !f.Snap.Knows(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	info := FileInfo{FileName: path.Base(name), FileMode: t}
	if data, ok := SrcFS(f).dataOf(name); ok {
		info.size = int64(len(data))
	}
	return info, nil
}

func (f snapFS) ReadDir(name string) ([]fs.DirEntry, error) {
	info, err := f.Stat(name)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: syscall.ENOTDIR}
	}
	var out []fs.DirEntry
	for _, n := range SrcFS(f).namesOf(name) {
		ci, _ := f.Stat(path.Join(name, n))
		out = append(out, fs.FileInfoToDirEntry(ci))
	}
	return out, nil
}

type srcFile struct {
	*bytes.Reader
	readErr error // a folder's
	info    FileInfo
}

func (f *srcFile) Read(p []byte) (int, error) {
	if f.readErr != nil {
		return 0, f.readErr
	}
	return f.Reader.Read(p)
}

func (*srcFile) Write([]byte) (int, error)    { return 0, errReadOnly }
func (*srcFile) Close() error                 { return nil }
func (f *srcFile) Stat() (os.FileInfo, error) { return f.info, nil }

// FileInfo is the os.FileInfo of a snapshot entry.
type FileInfo struct {
	FileName string
	size     int64
	FileMode fs.FileMode
}

func (i FileInfo) Name() string { return i.FileName }
func (i FileInfo) Size() int64  { return i.size }
func (i FileInfo) Mode() fs.FileMode {
	if i.FileMode.IsDir() {
		return i.FileMode | 0o755
	}
	return i.FileMode | 0o644
}
func (i FileInfo) ModTime() time.Time { return time.Time{} }
func (i FileInfo) IsDir() bool        { return i.FileMode.IsDir() }
func (i FileInfo) Sys() any           { return nil }
