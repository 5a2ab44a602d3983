package artifact

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/values"
)

// CopyOp is one spec.artifacts[].copy entry of an ArtifactGenerator (source-watcher
// api/v1beta1 CopyOperation).
type CopyOp struct {
	From     string   `json:"from"`
	To       string   `json:"to"`
	Exclude  []string `json:"exclude,omitempty"`
	Strategy string   `json:"strategy,omitempty"`
}

// ErrExtract marks a copy with the Extract strategy, which tiergate does not reproduce:
// the tarball's files are not files of the repository.
var ErrExtract = errors.New("the Extract strategy unpacks a tarball, which tiergate does not review")

// NewStaged returns an empty artifact that takes at most max files (Limits.MaxFiles).
func NewStaged(max int) *Staged {
	return &Staged{files: map[string]*stagedFile{}, dirs: map[string]bool{}, max: max}
}

// Staged is the artifact being assembled: files by artifact path, each with its content
// (or why it is refused) and the repository file it came from; folders made on the way.
type Staged struct {
	files  map[string]*stagedFile
	dirs   map[string]bool
	writes int // files written so far, bounded by max (Limits.MaxFiles)
	max    int
}

type stagedFile struct {
	data    []byte
	refused string
	origin  string   // the repository file copied last; a merged file keeps its first
	merges  []string // the repository files merged into it after origin, in order
}

// SourceTree is one generator source as source-watcher sees it once fetched: the folder
// prefix of the repository snapshot that holds the source's artifact.
type SourceTree struct {
	Snap   *graph.Snapshot
	Prefix string // "" for the repository root
}

func (t SourceTree) rel(p string) string {
	if t.Prefix == "" || p == "." {
		return path.Join(t.Prefix, p)
	}
	return t.Prefix + "/" + p
}

// typeOf is the type of p in the source's artifact: symlinks and special files are not in
// an artifact source-controller packs (Storage.Archive), so they are absent.
func (t SourceTree) typeOf(p string) (fs.FileMode, bool) {
	rel := t.rel(p)
	if rel == "" {
		rel = "."
	}
	m, ok := t.Snap.Types[rel]
	if !ok || !t.Snap.Knows(rel) || (!m.IsDir() && !m.IsRegular()) {
		return 0, false
	}
	return m, true
}

// FS interface for fs.Glob and doublestar.Glob (what source-watcher globs with).
func (t SourceTree) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
}

// Stat is fs.StatFS's Stat over the source's artifact.
func (t SourceTree) Stat(name string) (fs.FileInfo, error) {
	m, ok := t.typeOf(name)
	if !ok || !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return entryInfo{name: path.Base(name), mode: m}, nil
}

// ReadDir is fs.ReadDirFS's ReadDir over the source's artifact.
func (t SourceTree) ReadDir(name string) ([]fs.DirEntry, error) {
	m, ok := t.typeOf(name)
	if !ok || !m.IsDir() || !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	rel := t.rel(name)
	if rel == "" {
		rel = "."
	}
	var out []fs.DirEntry
	for _, n := range t.Snap.Names[rel] {
		if cm, ok := t.typeOf(path.Join(name, n)); ok {
			out = append(out, fs.FileInfoToDirEntry(entryInfo{name: n, mode: cm}))
		}
	}
	return out, nil
}

type entryInfo struct {
	name string
	mode fs.FileMode
}

func (e entryInfo) Name() string       { return e.name }
func (e entryInfo) Size() int64        { return 0 }
func (e entryInfo) Mode() fs.FileMode  { return e.mode }
func (e entryInfo) ModTime() time.Time { return time.Time{} }
func (e entryInfo) IsDir() bool        { return e.mode.IsDir() }
func (e entryInfo) Sys() any           { return nil }

// Apply runs one copy operation as source-watcher's applyCopyOperation does
// (internal/builder/builder.go): "@alias/pattern" to "@artifact/path"; a pattern without
// glob characters copies that file or folder cp-like, a glob copies each match (fs.Glob,
// so "**" is one path segment; doublestar for Extract); exclude patterns match the path
// in the source and relative to the pattern's literal prefix.
func (s *Staged) Apply(op CopyOp, sources map[string]SourceTree) error {
	alias, pattern, ok := strings.Cut(strings.TrimPrefix(op.From, "@"), "/")
	if !strings.HasPrefix(op.From, "@") || !ok {
		return fmt.Errorf("invalid copy source '%s': source format must be '@alias/pattern'", op.From)
	}
	if !strings.HasPrefix(op.To, "@artifact/") {
		return fmt.Errorf("invalid copy destination '%s': destination must start with '@artifact/'", op.To)
	}
	dest := path.Clean(strings.TrimPrefix(op.To, "@artifact/"))
	if dest == ".." || strings.HasPrefix(dest, "../") || path.IsAbs(dest) {
		return fmt.Errorf("destination '%s' is outside the artifact", op.To)
	}
	src, ok := sources[alias]
	if !ok {
		return fmt.Errorf("source alias '%s' not found", alias)
	}
	for _, p := range op.Exclude {
		if _, err := doublestar.Match(p, "."); err != nil {
			return fmt.Errorf("invalid exclude pattern '%s'", p)
		}
	}
	if op.Strategy == "Extract" {
		return ErrExtract
	}
	if !strings.ContainsAny(pattern, "*?[]") {
		return s.single(op, src, path.Clean(pattern), dest, strings.HasSuffix(op.To, "/"))
	}
	matches, err := fs.Glob(src, pattern)
	if err != nil {
		return fmt.Errorf("invalid glob pattern '%s': %w", pattern, err)
	}
	if len(matches) == 0 {
		return fmt.Errorf("no files match pattern '%s' in source '%s'", pattern, alias)
	}
	base := selectionRoot(pattern)
	var kept []string
	for _, m := range matches {
		if m != "." && m != ".." && !excluded(m, base, op.Exclude) {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		return fmt.Errorf("all files matching pattern '%s' in source '%s' were excluded", pattern, alias)
	}
	for _, m := range kept {
		to := globDestination(pattern, m, dest)
		if err := s.copy(op, src, m, to, base); err != nil {
			return fmt.Errorf("failed to copy file '%s' to '%s': %w", m, to, err)
		}
	}
	return nil
}

// single is applySingleSourceCopy: a folder lands as a subfolder of dest, a file at dest
// (or inside it when dest ends with "/" or is a folder already).
func (s *Staged) single(op CopyOp, src SourceTree, p, dest string, slash bool) error {
	m, ok := src.typeOf(p)
	if !ok {
		return fmt.Errorf("source '%s' does not exist", p)
	}
	if m.IsDir() {
		return s.copy(op, src, p, path.Join(dest, path.Base(p)), p)
	}
	if excluded(p, ".", op.Exclude) {
		return nil
	}
	if slash || s.dirs[dest] {
		dest = path.Join(dest, path.Base(p))
	}
	return s.copy(op, src, p, dest, ".")
}

// copy is copyFileWithRoots: a folder is copied whole (never merged), a file merged into
// an existing one under the Merge strategy, else written over it.
func (s *Staged) copy(op CopyOp, src SourceTree, p, dest, base string) error {
	m, _ := src.typeOf(p)
	if !m.IsDir() {
		if _, exists := s.files[dest]; exists && op.Strategy == "Merge" {
			return s.merge(src, p, dest)
		}
		return s.write(src, p, dest)
	}
	if err := s.mkdir(dest); err != nil {
		return err
	}
	return fs.WalkDir(src, p, func(q string, d fs.DirEntry, err error) error {
		if err != nil || q == p {
			return err
		}
		if excluded(q, base, op.Exclude) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		to := path.Join(dest, strings.TrimPrefix(q, p+"/"))
		if p == "." {
			to = path.Join(dest, q)
		}
		if d.IsDir() {
			return s.mkdir(to)
		}
		return s.write(src, q, to)
	})
}

func (s *Staged) mkdir(dir string) error {
	for d := dir; d != "." && d != ""; d = path.Dir(d) {
		if _, isFile := s.files[d]; isFile {
			return fmt.Errorf("mkdir %s: not a directory", d)
		}
		s.dirs[d] = true
	}
	return nil
}

func (s *Staged) write(src SourceTree, p, dest string) error {
	if dest == "." || s.dirs[dest] {
		return fmt.Errorf("open %s: is a directory", dest)
	}
	if s.writes++; s.writes > s.max {
		return fmt.Errorf("%w: the copy operations write more than %d files (--max-files)", graph.ErrLimitExceeded, s.max)
	}
	if err := s.mkdir(path.Dir(dest)); err != nil {
		return err
	}
	rel := src.rel(p)
	f := &stagedFile{origin: rel}
	if why, ok := src.Snap.Refused[rel]; ok {
		f.refused = why
	} else {
		f.data, _ = src.Snap.Read(rel)
	}
	s.files[dest] = f
	return nil
}

// merge is mergeFileWithRoots (internal/builder/merge.go): every document of each file
// is deep-merged into one map (nested maps merged, anything else replaced, as Helm merges
// values files), the source over the destination, written back as one YAML document.
func (s *Staged) merge(src SourceTree, p, dest string) error {
	rel := src.rel(p)
	data, ok := src.Snap.Read(rel)
	if !ok {
		return fmt.Errorf("open %s: %s", p, src.Snap.Refused[rel])
	}
	over, err := loadYAMLDocs(data)
	if err != nil {
		return err
	}
	d := s.files[dest]
	if d.refused != "" {
		return fmt.Errorf("open %s: %s", dest, d.refused)
	}
	under, err := loadYAMLDocs(d.data)
	if err != nil {
		return err
	}
	out, err := yaml.Marshal(values.Merge(under, over))
	if err != nil {
		return fmt.Errorf("failed to merged YAML: %w", err)
	}
	d.data, d.merges = out, append(d.merges, rel)
	return nil
}

func loadYAMLDocs(data []byte) (map[string]any, error) {
	out := map[string]any{}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("error reading YAML document: %w", err)
		}
		m := map[string]any{}
		if err := yaml.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("cannot unmarshal YAML document: %w", err)
		}
		out = values.Merge(out, m)
	}
}

// globDestination is calculateGlobDestination: "dir/**" strips dir from each match,
// any other glob keeps the whole match path under dest.
func globDestination(pattern, match, dest string) string {
	if prefix, ok := strings.CutSuffix(pattern, "/**"); ok {
		if rest, ok := strings.CutPrefix(match, prefix+"/"); ok {
			return path.Join(dest, rest)
		}
	}
	return path.Join(dest, match)
}

// selectionRoot is sourceSelectionRoot: the literal prefix before the first glob segment.
func selectionRoot(pattern string) string {
	var parts []string
	for _, p := range strings.Split(path.Clean(pattern), "/") {
		if strings.ContainsAny(p, "*?[]") {
			break
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return "."
	}
	return path.Join(parts...)
}

// excluded is shouldExcludePath: a pattern matches the path in the source, or the path
// relative to base; one without "/" matches the base name too.
func excluded(p, base string, patterns []string) bool {
	if matchesAny(p, patterns) {
		return true
	}
	rel, ok := p, true
	if base != "." && base != "" {
		rel, ok = strings.CutPrefix(p, base+"/")
	}
	return ok && rel != "." && rel != p && matchesAny(rel, patterns)
}

func matchesAny(p string, patterns []string) bool {
	for _, pat := range patterns {
		if doublestar.MatchUnvalidated(pat, p) || !strings.Contains(pat, "/") && doublestar.MatchUnvalidated(pat, path.Base(p)) {
			return true
		}
	}
	return false
}

// Snapshot turns the staged artifact into a snapshot rendered at root, and says which
// repository file each of its files came from, and which were merged with which others.
func (s *Staged) Snapshot(root string) (*graph.Snapshot, map[string]string, map[string][]string) {
	out := graph.NewSnapshot(root)
	origin, merged := map[string]string{}, map[string][]string{}
	for _, d := range slices.Sorted(maps.Keys(s.dirs)) {
		out.AddPath(d, fs.ModeDir)
	}
	for p, f := range s.files {
		out.AddPath(p, 0)
		origin[p] = f.origin
		if f.merges != nil {
			merged[p] = f.merges
		}
		switch {
		case f.refused != "":
			out.Refused[p] = f.refused
		default:
			out.Data[p] = f.data
		}
	}
	return out.Finish(), origin, merged
}
