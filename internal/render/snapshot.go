package render

import (
	"io/fs"
	"path"
	"strings"
)

// snapshot is what scan saw of a tree, so that the rest of a render asks the disk again
// only for what a build reads: every entry's type, each folder's entry names (in
// filepath.WalkDir order), the YAML-named files in walk order, and their content (read
// once for the alias check, then served to discovery, the index and fingerprints).
type snapshot struct {
	refused map[string]string      // repo-relative path → why kustomize may not read it
	types   map[string]fs.FileMode // repo-relative path → its type bits (0: regular file)
	names   map[string][]string    // repo-relative folder ("." the root) → entry names
	files   []string               // YAML-named regular files, in walk order
	data    map[string][]byte      // their content, unless refused
	// unwalked holds the folders scan did not enter (.git): what is below them is asked
	// of the disk.
	unwalked map[string]bool
}

func newSnapshot() *snapshot {
	return &snapshot{refused: map[string]string{}, types: map[string]fs.FileMode{".": fs.ModeDir},
		names: map[string][]string{".": nil}, data: map[string][]byte{}, unwalked: map[string]bool{}}
}

func (s *snapshot) add(rel string, typ fs.FileMode) {
	s.types[rel] = typ.Type()
	dir := path.Dir(rel)
	s.names[dir] = append(s.names[dir], path.Base(rel))
	if typ.IsDir() {
		s.names[rel] = []string{}
	}
}

func (s *snapshot) keep(rel string, data []byte) {
	s.files = append(s.files, rel)
	s.data[rel] = data
}

// state is what Lstat says of rel, as statState names it.
func (s *snapshot) state(rel string) string {
	t, ok := s.types[rel]
	switch {
	case !ok:
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

// knows reports whether the snapshot describes rel: not when rel lies outside the tree or
// below a folder scan did not enter.
func (s *snapshot) knows(rel string) bool {
	if rel == ".." || strings.HasPrefix(rel, "../") || path.IsAbs(rel) {
		return false
	}
	for p := rel; p != "."; p = path.Dir(p) {
		if s.unwalked[p] && p != rel {
			return false
		}
	}
	return true
}
