package fsys

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// Source is a source artifact held in memory, as Render reads it: the files of a folder
// or of a git commit's tree, within Limits. Symlinks, files over MaxFileBytes and YAML
// alias bombs are kept as refused entries that no build may read. It is immutable and may
// be rendered any number of times, concurrently.
type Source struct {
	Snapshot *graph.Snapshot
	// id, when set, names the content: sources with the same id have the same files
	// (a git tree hash). Render keeps the graph of such a source in its Cache.
	ID string
}

// Root is the absolute path the source is rendered at (repo-relative paths in a Graph
// are relative to it): the folder ReadSource read, or the virtual root of a SourceBuilder.
func (s *Source) Root() string { return s.Snapshot.Root }

// ReadFile returns the content of the repo-relative, slash-separated file rel; false when
// there is none or it was refused.
func (s *Source) ReadFile(rel string) ([]byte, bool) { return s.Snapshot.Read(rel) }

// Refused returns why the repo-relative, slash-separated file rel was kept out of the
// source (over MaxFileBytes, a YAML alias bomb, a symlink); false when it was not refused.
func (s *Source) Refused(rel string) (string, bool) {
	why, ok := s.Snapshot.Refused[rel]
	return why, ok
}

// IsDir reports whether the repo-relative, slash-separated path rel is a folder.
func (s *Source) IsDir(rel string) bool {
	rel = CleanPath(rel)
	if rel == "" {
		rel = "."
	}
	return s.Snapshot.State(rel) == "dir"
}

// SourceBuilder assembles a Source entry by entry (a git tree walk), enforcing the tree
// limits as it goes: MaxFiles (files, folders and symlinks), MaxDepth and MaxTotalBytes
// fail Add with an error wrapping ErrLimitExceeded that names the limit and the path.
type SourceBuilder struct {
	snap   *graph.Snapshot
	limits graph.Limits
	files  int
	total  int64
	checks *Checks
}

// Checks remembers AliasBomb's verdict on each content digest (a git blob hash), for the
// SourceBuilders of one review: a file base and head share is checked once. Its zero value
// is ready; safe for concurrent use.
type Checks struct {
	mu sync.Mutex
	m  map[string]string // digest → AliasBomb's verdict
}

// aliasBomb is AliasBomb(data), taken from c when it holds digest's verdict; c may be nil.
func (c *Checks) aliasBomb(digest string, data []byte) string {
	if c == nil || digest == "" {
		return AliasBomb(data)
	}
	c.mu.Lock()
	why, ok := c.m[digest]
	c.mu.Unlock()
	if ok {
		return why
	}
	why = AliasBomb(data)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]string{}
	}
	c.m[digest] = why
	c.mu.Unlock()
	return why
}

// ShareChecks makes b take and keep AliasBomb verdicts in c.
func (b *SourceBuilder) ShareChecks(c *Checks) { b.checks = c }

// GitTreeID is the Source id of the git tree with hash tree (hex).
func GitTreeID(tree string) string { return "git tree " + tree }

// VirtualRoot is the absolute path a SourceBuilder's source is rendered at. Nothing is
// read or written there.
const VirtualRoot = "/tiergate-artifact"

// NewSourceBuilder starts an empty source under l (zero fields take DefaultLimits).
func NewSourceBuilder(l graph.Limits) *SourceBuilder {
	return &SourceBuilder{snap: graph.NewSnapshot(VirtualRoot), limits: l.WithDefaults()}
}

// AddFile adds the regular file rel (slash-separated, relative to the root) of size bytes.
// digest, when not empty, is a content digest that equal contents share (a git blob hash);
// read is called for the content unless the file is refused for its size.
func (b *SourceBuilder) AddFile(rel string, size int64, digest string, read func() ([]byte, error)) error {
	if err := b.entry(rel, 0); err != nil {
		return err
	}
	b.total += size
	if b.total > b.limits.MaxTotalBytes {
		return fmt.Errorf("%w: MaxTotalBytes is %d, reached at %s", graph.ErrLimitExceeded, b.limits.MaxTotalBytes, rel)
	}
	if size > b.limits.MaxFileBytes {
		b.snap.Refused[rel] = fmt.Sprintf("%s has %d bytes, over tiergate's per-file limit of %d (--max-file-bytes)", rel, size, b.limits.MaxFileBytes)
		return nil
	}
	data, err := read()
	if err != nil {
		return fmt.Errorf("read %s: %w", rel, err)
	}
	if graph.IsYAMLName(rel) {
		if why := b.checks.aliasBomb(digest, data); why != "" {
			b.snap.Refused[rel] = rel + why
			return nil
		}
	}
	b.snap.Data[rel] = data
	if digest != "" {
		b.snap.Digests[rel] = digest
	}
	return nil
}

// MaxSymlinkTarget is the longest symlink target kept (PATH_MAX on Linux).
const MaxSymlinkTarget = 4096

// AddSymlink adds the symlink rel to target: refused, as source-controller leaves symlinks
// out of the artifact (source-controller#191). Its target matters only for a .sourceignore,
// which source-controller reads through symlinks before it packs; "" when unknown.
func (b *SourceBuilder) AddSymlink(rel, target string) error {
	if err := b.entry(rel, fs.ModeSymlink); err != nil {
		return err
	}
	if target != "" && len(target) <= MaxSymlinkTarget {
		b.snap.Links[rel] = target
	}
	b.snap.Refused[rel] = rel + " is a symlink, which source-controller leaves out of the artifact"
	return nil
}

// entry adds rel and its parent folders, counting each against the limits.
func (b *SourceBuilder) entry(rel string, typ fs.FileMode) error {
	if rel == "" || rel == "." || path.IsAbs(rel) || path.Clean(rel) != rel || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("invalid path %q in source", rel)
	}
	if dir := path.Dir(rel); dir != "." {
		if _, ok := b.snap.Types[dir]; !ok {
			if err := b.entry(dir, fs.ModeDir); err != nil {
				return err
			}
		}
	}
	b.files++
	switch depth := strings.Count(rel, "/") + 1; {
	case b.files > b.limits.MaxFiles:
		return fmt.Errorf("%w: MaxFiles is %d, reached at %s", graph.ErrLimitExceeded, b.limits.MaxFiles, rel)
	case depth > b.limits.MaxDepth:
		return fmt.Errorf("%w: MaxDepth is %d, %s is %d deep", graph.ErrLimitExceeded, b.limits.MaxDepth, rel, depth)
	}
	b.snap.Add(rel, typ)
	return nil
}

// Source returns the source built so far; the builder must not be used after. id, when
// not empty, must name the content exactly: a git tree hash (GitTreeID).
func (b *SourceBuilder) Source(id string) *Source { return &Source{Snapshot: b.snap.Finish(), ID: id} }

// ReadFileSized reads the file p, which its stat said has size bytes, reading no more
// than that: a file that grew since (or a FIFO swapped in) fails rather than being read
// whole past the MaxFileBytes check it passed.
func ReadFileSized(p string, size int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, size+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > size {
		return nil, fmt.Errorf("%s changed while it was read: more than the %d bytes it had", p, size)
	}
	return data, nil
}

// ReadSource reads the folder dir into a Source rendered at dir's absolute path, without
// following symlinks and without entering .git folders, within l (zero fields take
// DefaultLimits). It fails when dir cannot be read or exceeds a tree limit.
func ReadSource(dir string, l graph.Limits) (*Source, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	b := NewSourceBuilder(l)
	b.snap.Root = abs
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == abs {
			return err
		}
		rel := graph.RelPath(abs, p)
		switch {
		case d.IsDir():
			if err := b.entry(rel, fs.ModeDir); err != nil {
				return err
			}
			if d.Name() == ".git" {
				b.snap.Unwalked[rel] = true
				return filepath.SkipDir
			}
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			return b.AddSymlink(rel, target)
		case d.Type().IsRegular():
			info, err := d.Info()
			if err != nil {
				return err
			}
			return b.AddFile(rel, info.Size(), "", func() ([]byte, error) { return ReadFileSized(p, info.Size()) })
		default:
			return b.entry(rel, d.Type())
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b.Source(""), nil
}

// AliasBomb returns why data must not be parsed, or "": YAML aliases that expand to more
// than ten times the document and over 100,000 nodes ("billion laughs"), or an alias inside
// the node it names, whose expansion never ends. kustomize's reader expands every alias
// (kyaml RNode.DeAnchor) without a bound, so a few hundred bytes would keep a build busy
// for hours.
func AliasBomb(data []byte) string {
	if !MayHaveAlias(data) {
		return ""
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if dec.Decode(&n) != nil {
			return "" // the end, or an error kustomize reports itself
		}
		if why := expansion(&n); why != "" {
			return why
		}
	}
}

// expansion returns why the document n is refused for its aliases, or "".
func expansion(n *yaml.Node) string {
	// yaml.v3 names a node by its anchor before it parses the node's children
	// (decode.go parser.anchor), so "&a [*a]" is an alias inside its own target:
	// open marks the targets being counted, and meeting one again is that cycle.
	const cycle = -1
	nodes, memo := 0, map[*yaml.Node]int{}
	var count func(*yaml.Node) int
	count = func(n *yaml.Node) int {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			if c, ok := memo[n.Alias]; ok {
				return c
			}
			memo[n.Alias] = cycle
			c := count(n.Alias)
			memo[n.Alias] = c
			return c
		}
		nodes++
		c := 1
		for _, ch := range n.Content {
			cc := count(ch)
			if cc == cycle {
				return cycle
			}
			c += cc
			if c > 1<<40 {
				return c // enough to refuse; stops overflow
			}
		}
		return c
	}
	total := count(n)
	switch {
	case total == cycle:
		return " has a YAML alias inside the node its anchor names, which kustomize would expand without end"
	case total > 100000 && total > 10*nodes:
		return fmt.Sprintf(" has YAML aliases that expand to %d nodes from %d, which kustomize would expand without bound (billion laughs)", total, nodes)
	}
	return ""
}

// MayHaveAlias reports whether yaml.v3 could find an alias of an anchor in data; when it
// is false data has no alias node, so AliasBomb need not parse it. yaml.v3's scanner
// reads an anchor or an alias as "&" or "*" and then one or more of [0-9A-Za-z_-]
// (scannerc.go yaml_parser_scan_anchor, is_alpha; anything else is a scan error), and an
// alias of an anchor the text lacks fails the parse (decode.go parser.alias): so both an
// "&" and a "*" followed by such a character are needed. A "*" in a cron schedule
// ("*/5 * * * *") or a glob ("*.example.com", "**/*.yaml") is not followed by one. Text
// in UTF-16 (yaml.v3 reads it after its byte-order mark) is always parsed.
func MayHaveAlias(data []byte) bool {
	if bytes.HasPrefix(data, []byte{0xfe, 0xff}) || bytes.HasPrefix(data, []byte{0xff, 0xfe}) {
		return true
	}
	return indicated(data, '*') && indicated(data, '&')
}

// indicated reports whether data holds c followed by an anchor-name character.
func indicated(data []byte, c byte) bool {
	for {
		i := bytes.IndexByte(data, c)
		if i < 0 || i+1 >= len(data) {
			return false
		}
		if anchorChar(data[i+1]) {
			return true
		}
		data = data[i+1:]
	}
}

// anchorChar is yaml.v3's is_alpha (yamlprivateh.go): the characters of an anchor's name.
func anchorChar(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b == '_' || b == '-'
}

// CleanPath is p as a clean repo-relative path: trimmed, without a leading "/" or "..".
func CleanPath(p string) string {
	p = path.Clean("/" + strings.TrimSpace(p))
	return strings.TrimPrefix(p, "/")
}

// RegularFiles lists the repo-relative paths of the regular files whose content the source
// holds, sorted; tree discovery outside the Flux graph (bootstrap helmfiles) walks them.
func (s *Source) RegularFiles() []string {
	out := make([]string, 0, len(s.Snapshot.Data))
	for rel := range s.Snapshot.Data {
		if s.Snapshot.Knows(rel) {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}
