package graph

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

// Snapshot is a source artifact in memory, the only thing a render reads: every entry's
// type, each folder's entry names (sorted, as filepath.WalkDir lists them), the content of
// every regular file the builder did not refuse, and the YAML-named files in walk
// order. Root is the absolute path the artifact is rendered at: the folder it was read
// from, or a virtual path for a git tree. A snapshot is never modified once built.
type Snapshot struct {
	Root     string
	Refused  map[string]string      // repo-relative path → why kustomize may not read it
	Types    map[string]fs.FileMode // repo-relative path → its type bits (0: regular file)
	Names    map[string][]string    // repo-relative folder ("." the root) → entry names
	Data     map[string][]byte      // regular file → content, unless refused
	Files    []string               // YAML-named files with content, in walk order
	Unwalked map[string]bool        // folders whose content was not read (.git)
	Links    map[string]string      // symlink → its target, when known
	// LeftOut are the symlinks (and other entries neither a file nor a folder) that Without
	// left out as source-controller's packing does, with their targets when known: a build
	// that misses one can say why.
	LeftOut map[string]string

	mu      sync.Mutex
	Digests map[string]string // regular file → content digest, given or computed once
	lines   map[string][]string
	memo    map[string]any
}

// NewSnapshot returns an empty snapshot rendered at the absolute path root.
func NewSnapshot(root string) *Snapshot {
	return &Snapshot{Root: root, Refused: map[string]string{}, Types: map[string]fs.FileMode{".": fs.ModeDir},
		Names: map[string][]string{".": nil}, Data: map[string][]byte{}, Unwalked: map[string]bool{},
		Links: map[string]string{}, LeftOut: map[string]string{}, Digests: map[string]string{}}
}

// Add records the entry rel of type typ; its parent folder must be known.
func (s *Snapshot) Add(rel string, typ fs.FileMode) {
	if _, ok := s.Types[rel]; ok {
		return
	}
	s.Types[rel] = typ.Type()
	dir := path.Dir(rel)
	s.Names[dir] = append(s.Names[dir], path.Base(rel))
	if typ.IsDir() {
		s.Names[rel] = []string{}
	}
}

// Finish sorts the folders' names and lists the YAML-named files in walk order.
func (s *Snapshot) Finish() *Snapshot {
	for _, ns := range s.Names {
		sort.Strings(ns)
	}
	s.Files = nil
	var walk func(dir string)
	walk = func(dir string) {
		for _, n := range s.Names[dir] {
			rel := path.Join(dir, n)
			if s.Types[rel].IsDir() {
				walk(rel)
			} else if _, ok := s.Data[rel]; ok && IsYAMLName(rel) {
				s.Files = append(s.Files, rel)
			}
		}
	}
	walk(".")
	return s
}

// Rel is the repo-relative, slash-separated form of the absolute path p.
func (s *Snapshot) Rel(p string) string { return RelPath(s.Root, p) }

// Knows reports whether rel names something the snapshot can answer for: not outside
// the tree nor below a folder whose content was not read.
func (s *Snapshot) Knows(rel string) bool {
	if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return false
	}
	for p := path.Dir(rel); p != "." && p != "/"; p = path.Dir(p) {
		if s.Unwalked[p] {
			return false
		}
	}
	return true
}

// State is what Lstat says of rel: absent, file, dir, symlink or other.
func (s *Snapshot) State(rel string) string {
	t, ok := s.Types[rel]
	switch {
	case !ok || !s.Knows(rel):
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

// Read returns the content of the regular file rel, false when absent or refused.
func (s *Snapshot) Read(rel string) ([]byte, bool) {
	data, ok := s.Data[rel]
	return data, ok
}

// ReadFollowing is read through symlinks whose targets stay in the tree (as os.Open would
// read them, never outside); the path read in the end is returned too.
func (s *Snapshot) ReadFollowing(rel string) ([]byte, string, bool) {
	for hops := 0; hops < 40; hops++ {
		if data, ok := s.Data[rel]; ok {
			return data, rel, true
		}
		target, ok := s.Links[rel]
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

// ReadAbs is read for an absolute path.
func (s *Snapshot) ReadAbs(p string) ([]byte, bool) { return s.Read(s.Rel(filepath.Clean(p))) }

// Digest returns rel's git blob hash: given when the tree came from git, computed
// otherwise, so that a file read from a folder or a work tree has the digest its commit
// would give it (keptChart compares a base chart read from git with a head read from disk).
func (s *Snapshot) Digest(rel string) string {
	s.mu.Lock()
	d, ok := s.Digests[rel]
	s.mu.Unlock()
	if ok {
		return d
	}
	d = plumbing.ComputeHash(plumbing.BlobObject, s.Data[rel]).String()
	s.mu.Lock()
	s.Digests[rel] = d
	s.mu.Unlock()
	return d
}

// Lines returns rel's content split at each "\n" (strings.Split: a final newline gives a
// last, empty line), split once per snapshot and shared by every caller, who must not
// change it; false when rel is not a file with content. Rules locate each finding's line
// in its file: splitting a file of N manifests for each of N findings was quadratic.
func (s *Snapshot) Lines(rel string) ([]string, bool) {
	data, ok := s.Data[rel]
	if !ok {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l, ok := s.lines[rel]; ok {
		return l, true
	}
	if s.lines == nil {
		s.lines = map[string][]string{}
	}
	l := strings.Split(string(data), "\n")
	s.lines[rel] = l
	return l, true
}

// Memo returns the value compute returned for key the first time Memo was asked for it on
// this snapshot: what a reader derives from the snapshot's files (a file's parsed
// documents) is derived once per snapshot, not once per question. compute runs under the
// snapshot's lock and must not call the snapshot's methods that take it (Lines, Digest,
// Memo); key should name the reader and the file.
func (s *Snapshot) Memo(key string, compute func() any) any {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.memo[key]; ok {
		return v
	}
	if s.memo == nil {
		s.memo = map[string]any{}
	}
	v := compute()
	s.memo[key] = v
	return v
}

// Digest is the content digest of a file: hex of the first 16 bytes of its SHA-256.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// Without returns the snapshot less the entries drop selects and less every symlink (and
// anything else neither a file nor a folder): what source-controller puts in an artifact.
// Entries are judged one by one, as Storage.Archive does: below a dropped folder, a file
// drop keeps is kept, and its folders with it.
func (s *Snapshot) Without(drop func(rel string, dir bool) bool) *Snapshot {
	if !s.dropsAny(drop) {
		return s // the usual case: nothing to leave out, nothing to copy
	}
	out := NewSnapshot(s.Root)
	// keep reports whether rel stays, adding it (and its parents, first) to out.
	var keep func(rel string) bool
	keep = func(rel string) bool {
		t := s.Types[rel]
		switch {
		case t.IsDir():
			kept := !drop(rel, true)
			if kept {
				out.AddPath(rel, t)
			}
			for _, n := range s.Names[rel] {
				if keep(path.Join(rel, n)) && !kept {
					kept = true
					out.AddPath(rel, t)
				}
			}
			if kept && s.Unwalked[rel] {
				out.Unwalked[rel] = true
			}
			return kept
		case !t.IsRegular():
			out.LeftOut[rel] = s.Links[rel]
			return false
		case drop(rel, false):
			return false
		}
		out.AddPath(rel, t)
		if r, ok := s.Refused[rel]; ok {
			out.Refused[rel] = r
		}
		if d, ok := s.Data[rel]; ok {
			out.Data[rel] = d
		}
		if d, ok := s.Digests[rel]; ok {
			out.Digests[rel] = d
		}
		return true
	}
	s.mu.Lock()
	for _, n := range s.Names["."] {
		keep(n)
	}
	s.mu.Unlock()
	return out.Finish()
}

// dropsAny reports whether without would leave anything out (a dropped folder counts, even
// if a file below it is kept).
func (s *Snapshot) dropsAny(drop func(rel string, dir bool) bool) bool {
	for rel, t := range s.Types {
		if rel != "." && (!t.IsRegular() && !t.IsDir() || drop(rel, t.IsDir())) {
			return true
		}
	}
	return false
}

// AddPath adds rel and any missing parent folders.
func (s *Snapshot) AddPath(rel string, typ fs.FileMode) {
	if dir := path.Dir(rel); dir != "." {
		if _, ok := s.Types[dir]; !ok {
			s.AddPath(dir, fs.ModeDir)
		}
	}
	s.Add(rel, typ)
}

// RelPath is the slash-separated path of p relative to the absolute folder abs.
func RelPath(abs, p string) string {
	rel, _ := filepath.Rel(abs, p)
	return filepath.ToSlash(rel)
}

// IsYAMLName reports whether the generator or the index would parse the file rel.
func IsYAMLName(rel string) bool {
	ext := filepath.Ext(rel)
	return ext == ".yaml" || ext == ".yml" || ext == ".json" || path.Base(rel) == "Kustomization"
}
