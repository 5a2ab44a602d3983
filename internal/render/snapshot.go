package render

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// snapshot is a source artifact in memory, the only thing a render reads: every entry's
// type, each folder's entry names (sorted, as filepath.WalkDir lists them), the content of
// every regular file the builder did not refuse, and the YAML-named files in walk
// order. root is the absolute path the artifact is rendered at: the folder it was read
// from, or a virtual path for a git tree. A snapshot is never modified once built.
type snapshot struct {
	root     string
	refused  map[string]string      // repo-relative path → why kustomize may not read it
	types    map[string]fs.FileMode // repo-relative path → its type bits (0: regular file)
	names    map[string][]string    // repo-relative folder ("." the root) → entry names
	data     map[string][]byte      // regular file → content, unless refused
	files    []string               // YAML-named files with content, in walk order
	unwalked map[string]bool        // folders whose content was not read (.git)
	links    map[string]string      // symlink → its target, when known

	mu      sync.Mutex
	digests map[string]string // regular file → content digest, given or computed once
}

func newSnapshot(root string) *snapshot {
	return &snapshot{root: root, refused: map[string]string{}, types: map[string]fs.FileMode{".": fs.ModeDir},
		names: map[string][]string{".": nil}, data: map[string][]byte{}, unwalked: map[string]bool{},
		links: map[string]string{}, digests: map[string]string{}}
}

// add records the entry rel of type typ; its parent folder must be known.
func (s *snapshot) add(rel string, typ fs.FileMode) {
	if _, ok := s.types[rel]; ok {
		return
	}
	s.types[rel] = typ.Type()
	dir := path.Dir(rel)
	s.names[dir] = append(s.names[dir], path.Base(rel))
	if typ.IsDir() {
		s.names[rel] = []string{}
	}
}

// finish sorts the folders' names and lists the YAML-named files in walk order.
func (s *snapshot) finish() *snapshot {
	for _, ns := range s.names {
		sort.Strings(ns)
	}
	s.files = nil
	var walk func(dir string)
	walk = func(dir string) {
		for _, n := range s.names[dir] {
			rel := path.Join(dir, n)
			if s.types[rel].IsDir() {
				walk(rel)
			} else if _, ok := s.data[rel]; ok && isYAMLName(rel) {
				s.files = append(s.files, rel)
			}
		}
	}
	walk(".")
	return s
}

// rel is the repo-relative, slash-separated form of the absolute path p.
func (s *snapshot) rel(p string) string { return relPath(s.root, p) }

// knows reports whether rel names something the snapshot can answer for: not outside
// the tree nor below a folder whose content was not read.
func (s *snapshot) knows(rel string) bool {
	if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return false
	}
	for p := path.Dir(rel); p != "." && p != "/"; p = path.Dir(p) {
		if s.unwalked[p] {
			return false
		}
	}
	return true
}

// state is what Lstat says of rel: absent, file, dir, symlink or other.
func (s *snapshot) state(rel string) string {
	t, ok := s.types[rel]
	switch {
	case !ok || !s.knows(rel):
		return "absent"
	case t&fs.ModeSymlink != 0:
		return "symlink"
	case t.IsDir():
		return "dir"
	case t.IsRegular():
		return "file"
	default:
		return "other"
	}
}

// read returns the content of the regular file rel, false when absent or refused.
func (s *snapshot) read(rel string) ([]byte, bool) {
	data, ok := s.data[rel]
	return data, ok
}

// readFollowing is read through symlinks whose targets stay in the tree (as os.Open would
// read them, never outside); the path read in the end is returned too.
func (s *snapshot) readFollowing(rel string) ([]byte, string, bool) {
	for hops := 0; hops < 40; hops++ {
		if data, ok := s.data[rel]; ok {
			return data, rel, true
		}
		target, ok := s.links[rel]
		if !ok || path.IsAbs(target) {
			return nil, "", false
		}
		rel = path.Join(path.Dir(rel), target)
		if rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, "", false
		}
	}
	return nil, "", false
}

// readAbs is read for an absolute path.
func (s *snapshot) readAbs(p string) ([]byte, bool) { return s.read(s.rel(filepath.Clean(p))) }

// digest returns rel's git blob hash: given when the tree came from git, computed
// otherwise, so that a file read from a folder or a work tree has the digest its commit
// would give it (keptChart compares a base chart read from git with a head read from disk).
func (s *snapshot) digest(rel string) string {
	s.mu.Lock()
	d, ok := s.digests[rel]
	s.mu.Unlock()
	if ok {
		return d
	}
	d = plumbing.ComputeHash(plumbing.BlobObject, s.data[rel]).String()
	s.mu.Lock()
	s.digests[rel] = d
	s.mu.Unlock()
	return d
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// without returns the snapshot less the entries drop selects and less every symlink (and
// anything else neither a file nor a folder): what source-controller puts in an artifact.
// Entries are judged one by one, as Storage.Archive does: below a dropped folder, a file
// drop keeps is kept, and its folders with it.
func (s *snapshot) without(drop func(rel string, dir bool) bool) *snapshot {
	if !s.dropsAny(drop) {
		return s // the usual case: nothing to leave out, nothing to copy
	}
	out := newSnapshot(s.root)
	// keep reports whether rel stays, adding it (and its parents, first) to out.
	var keep func(rel string) bool
	keep = func(rel string) bool {
		t := s.types[rel]
		switch {
		case t.IsDir():
			kept := !drop(rel, true)
			if kept {
				out.addPath(rel, t)
			}
			for _, n := range s.names[rel] {
				if keep(path.Join(rel, n)) && !kept {
					kept = true
					out.addPath(rel, t)
				}
			}
			if kept && s.unwalked[rel] {
				out.unwalked[rel] = true
			}
			return kept
		case !t.IsRegular() || drop(rel, false):
			return false
		}
		out.addPath(rel, t)
		if r, ok := s.refused[rel]; ok {
			out.refused[rel] = r
		}
		if d, ok := s.data[rel]; ok {
			out.data[rel] = d
		}
		if d, ok := s.digests[rel]; ok {
			out.digests[rel] = d
		}
		return true
	}
	s.mu.Lock()
	for _, n := range s.names["."] {
		keep(n)
	}
	s.mu.Unlock()
	return out.finish()
}

// dropsAny reports whether without would leave anything out (a dropped folder counts, even
// if a file below it is kept).
func (s *snapshot) dropsAny(drop func(rel string, dir bool) bool) bool {
	for rel, t := range s.types {
		if rel != "." && (!t.IsRegular() && !t.IsDir() || drop(rel, t.IsDir())) {
			return true
		}
	}
	return false
}

// addPath adds rel and any missing parent folders.
func (s *snapshot) addPath(rel string, typ fs.FileMode) {
	if dir := path.Dir(rel); dir != "." {
		if _, ok := s.types[dir]; !ok {
			s.addPath(dir, fs.ModeDir)
		}
	}
	s.add(rel, typ)
}
