package index

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// Doc is one YAML document of a manifest file, with the 1-based line of its `kind:` key.
type Doc struct {
	APIVersion string
	Kind       string
	Name       string
	Namespace  string
	Line       int
	// Start is the 1-based line of the document's first key (its `apiVersion:`, usually).
	Start int
	Node  *yaml.Node // the document's mapping node, for the discovered kinds; never modified
	obj   *docObject // the node as an object, converted once
}

// docObject is a document converted to an unstructured object, once, on first use.
type docObject struct {
	once sync.Once
	u    *unstructured.Unstructured
	err  error
}

// Object returns a copy of the document as an unstructured object (through YAML and JSON,
// so that values have the types of every Kubernetes object).
func (d Doc) Object() (*unstructured.Unstructured, error) {
	d.obj.once.Do(func() { d.obj.u, d.obj.err = nodeToUnstructured(d.Node) })
	if d.obj.err != nil {
		return nil, d.obj.err
	}
	return d.obj.u.DeepCopy(), nil
}

// Index parses the manifest files of a snapshot on demand and remembers their documents.
// Safe for concurrent use.
type Index struct {
	snap  *graph.Snapshot
	parse Parser
	mu    sync.Mutex
	files map[string][]Doc
}

// Parser returns the documents of a file whose content has digest sum (graph.Digest):
// Parse, or a cache of it shared across renders.
type Parser func(sum string, data []byte) []Doc

// New returns the index of snap, parsing files with parse; nil parse means Parse.
func New(snap *graph.Snapshot, parse Parser) *Index {
	if parse == nil {
		parse = func(_ string, data []byte) []Doc { return Parse(data) }
	}
	return &Index{snap: snap, parse: parse, files: map[string][]Doc{}}
}

// Snapshot is the tree the index reads.
func (ix *Index) Snapshot() *graph.Snapshot { return ix.snap }

// YAMLFiles lists the repo-relative YAML files of the tree, skipping .git.
func (ix *Index) YAMLFiles() []string {
	var out []string
	for _, rel := range ix.snap.Files {
		if ext := path.Ext(rel); (ext == ".yaml" || ext == ".yml") && ix.Readable(rel) {
			out = append(out, rel)
		}
	}
	return out
}

// Docs returns the documents of the repo-relative file rel; a file that does not parse
// yields the documents before the error.
func (ix *Index) Docs(rel string) []Doc {
	ix.mu.Lock()
	d, ok := ix.files[rel]
	ix.mu.Unlock()
	if ok {
		return d
	}
	if !ix.Readable(rel) {
		return nil
	}
	if data, err := ix.Read(rel); err == nil {
		d = ix.parse(ix.snap.Digest(rel), data)
	}
	ix.mu.Lock()
	ix.files[rel] = d
	ix.mu.Unlock()
	return d
}

// Read returns the content of the repo-relative file rel.
func (ix *Index) Read(rel string) ([]byte, error) {
	if data, ok := ix.snap.Read(rel); ok {
		return data, nil
	}
	return nil, os.ErrNotExist
}

// discovered are the kinds whose body discovery reads (rootOf, eachGitRepository); the
// documents of other kinds keep their kind, name and line only, which is all source lines
// need, so the parsed documents the Cache keeps stay small.
var discovered = map[string]bool{"Kustomization": true, "FluxInstance": true, "HelmRelease": true, "GitRepository": true}

// Parse returns the mapping documents of a manifest file, in order; a file that does not
// parse yields the documents before the error.
func Parse(data []byte) []Doc {
	var out []Doc
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) || err != nil {
			return out
		}
		if len(n.Content) == 0 || n.Content[0].Kind != yaml.MappingNode {
			continue
		}
		m := n.Content[0]
		d := Doc{Node: m, Line: m.Line, Start: m.Line, obj: &docObject{}}
		d.APIVersion = Scalar(m, "apiVersion")
		d.Kind = Scalar(m, "kind")
		if k := Key(m, "kind"); k != nil {
			d.Line = k.Line
		}
		if md := Value(m, "metadata"); md != nil {
			d.Name = Scalar(md, "name")
			d.Namespace = Scalar(md, "namespace")
		}
		if !discovered[d.Kind] {
			d.Node = nil // only discovery reads the body, of these kinds; the rest is lines
		}
		out = append(out, d)
	}
}

// Key is the key node of k in mapping m (aliases and merge keys followed); nil when absent.
func Key(m *yaml.Node, k string) *yaml.Node {
	kn, _ := lookup(m, k, 0)
	return kn
}

// Value is the value node of k in mapping m (aliases and merge keys followed); nil when absent.
func Value(m *yaml.Node, k string) *yaml.Node {
	_, v := lookup(m, k, 0)
	return v
}

// MaxMergeDepth bounds the chain of merge keys followed, which a hostile file can make
// circular.
const MaxMergeDepth = 8

// lookup finds key k of mapping m as kustomize reads it after kyaml's DeAnchor: aliases are
// followed, and a key the mapping lacks is taken from its merge keys (`<<: *base`),
// explicit keys first, then the merged mappings in order.
func lookup(m *yaml.Node, k string, depth int) (kn, v *yaml.Node) {
	m = Deref(m)
	if m == nil || m.Kind != yaml.MappingNode || depth > MaxMergeDepth {
		return nil, nil
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		kn := Deref(m.Content[i])
		if kn == nil || kn.Kind != yaml.ScalarNode {
			continue
		}
		if kn.Tag == "!!merge" {
			merges = append(merges, Deref(m.Content[i+1]))
		} else if kn.Value == k {
			return m.Content[i], Deref(m.Content[i+1])
		}
	}
	for _, mv := range merges {
		srcs := []*yaml.Node{mv}
		if mv != nil && mv.Kind == yaml.SequenceNode {
			srcs = mv.Content
		}
		for _, src := range srcs {
			if kn, v := lookup(src, k, depth+1); kn != nil {
				return kn, v
			}
		}
	}
	return nil, nil
}

// Deref follows an alias to the node it names.
func Deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i <= MaxMergeDepth; i++ {
		n = n.Alias
	}
	return n
}

// Scalar is the scalar value of k in mapping m; "" when absent or not a scalar.
func Scalar(m *yaml.Node, k string) string {
	if v := Value(m, k); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// Locate returns the line of the document of that kind whose name is, or is contained in,
// name (a namePrefix/nameSuffix or hash suffix may have been added); 1 when unknown.
func (ix *Index) Locate(rel, kind, name string) int {
	best, bestLen := 0, -1
	for _, d := range ix.Docs(rel) {
		if d.Kind != kind {
			continue
		}
		switch {
		case d.Name == name:
			return d.Line
		case d.Name != "" && strings.Contains(name, d.Name) && len(d.Name) > bestLen:
			best, bestLen = d.Line, len(d.Name)
		case bestLen < 0 && best == 0:
			best = d.Line
		}
	}
	if best == 0 {
		return 1
	}
	return best
}

// GeneratorLine returns the line of the `name:` of the configMapGenerator (kind ConfigMap) or
// secretGenerator (kind Secret) entry of kustomization file rel that made the object called
// name: the entry named exactly so, else the longest entry name that name contains (a
// namespace, prefix or hash suffix added); 0 when there is none.
func (ix *Index) GeneratorLine(rel, kind, name string) int {
	section := map[string]string{"ConfigMap": "configMapGenerator", "Secret": "secretGenerator"}[kind]
	data, err := ix.Read(rel)
	if section == "" || !ix.Readable(rel) || err != nil {
		return 0
	}
	best, bestLen, in := 0, 0, false
	for i, l := range strings.Split(string(data), "\n") {
		if m := topKey.FindStringSubmatch(l); m != nil {
			in = m[1] == section
			continue
		}
		m := entryName.FindStringSubmatch(l)
		if !in || m == nil {
			continue
		}
		switch n := strings.Trim(m[1], `"'`); {
		case n == name:
			return i + 1
		case strings.Contains(name, n) && len(n) > bestLen:
			best, bestLen = i+1, len(n)
		}
	}
	return best
}

var (
	topKey    = regexp.MustCompile(`^([A-Za-z]\w*)\s*:`)
	entryName = regexp.MustCompile(`^\s+(?:-\s+)?name:\s*(\S+)\s*(?:#.*)?$`)
)

// DataKey finds the manifest of the ConfigMap or Secret kind namespace/name (a document
// without a namespace counts: a kustomization or targetNamespace may set it) and returns its
// file and the line of its data or stringData key; "" when no manifest has one. It reads
// every YAML file, so it is for error paths only.
func (ix *Index) DataKey(kind, namespace, name, key string) (string, int) {
	for _, rel := range ix.YAMLFiles() {
		if !ix.Mentions(rel, name) {
			continue
		}
		for _, d := range ix.Docs(rel) {
			if d.Kind != kind || d.Name != name || (d.Namespace != "" && d.Namespace != namespace) {
				continue
			}
			if l := ix.LineOf(rel, d.Line, key+":"); l > 0 {
				return rel, l
			}
		}
	}
	return "", 0
}

// KeyLine returns the line of the spec field named field (of a Kubernetes object) in the
// document of rel that starts at or before from, or the line of "spec:" itself when field
// is ""; from when not found (the field comes from a patch, or the file is unreadable).
func (ix *Index) KeyLine(rel string, from int, field string) int {
	data, err := ix.Read(rel)
	if !ix.Readable(rel) || err != nil {
		return from
	}
	keys := []func(string) bool{specKey.MatchString}
	if field != "" {
		keys = append(keys, func(l string) bool { return fieldKey(l, field) })
	}
	for i, l := range strings.Split(string(data), "\n")[min(max(from-1, 0), bytes.Count(data, []byte("\n"))):] {
		if i > 0 && strings.HasPrefix(l, "---") {
			return from
		}
		if keys[0](l) {
			if len(keys) == 1 {
				return from + i
			}
			keys = keys[1:]
		}
	}
	return from
}

// specKey is the top-level "spec:" line of a manifest.
var specKey = regexp.MustCompile(`^spec\s*:`)

// keyEnd is what follows a key: its closing quote, spaces, the colon.
var keyEnd = regexp.MustCompile(`^["']?\s*:`)

// fieldKey reports whether line l is the indented key field, quoted or not: the regexp
// `^\s+["']?` + field + keyEnd, without compiling one per field (KeyLine runs per object).
func fieldKey(l, field string) bool {
	for i := 1; i <= len(l) && isSpace(l[i-1]); i++ {
		t := l[i:]
		if t != "" && (t[0] == '"' || t[0] == '\'') && keyAt(t[1:], field) || keyAt(t, field) {
			return true
		}
	}
	return false
}

// keyAt reports whether s is field followed by keyEnd.
func keyAt(s, field string) bool {
	rest, ok := strings.CutPrefix(s, field)
	return ok && keyEnd.MatchString(rest)
}

// isSpace reports whether b is one of regexp's \s.
func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r' }

// LineOf returns the 1-based line of the first line of rel at or after from that contains
// needle; 0 when absent.
func (ix *Index) LineOf(rel string, from int, needle string) int {
	if !ix.Readable(rel) {
		return 0
	}
	data, err := ix.Read(rel)
	if err != nil || needle == "" {
		return 0
	}
	for i, l := range strings.Split(string(data), "\n") {
		if i+1 >= from && strings.Contains(l, needle) {
			return i + 1
		}
	}
	return 0
}

// Mentions reports whether the file holds one of words anywhere: a document can only be of
// a kind whose name its text spells out (an alias repeats an anchor of the same file), so
// discovery parses only the files that may hold what it looks for.
func (ix *Index) Mentions(rel string, words ...string) bool {
	ix.mu.Lock()
	_, parsed := ix.files[rel]
	ix.mu.Unlock()
	return parsed || ix.Spells(rel, words...)
}

// Spells reports whether the text of the readable file rel holds one of words; false for a
// file that is absent or may not be read.
func (ix *Index) Spells(rel string, words ...string) bool {
	if !ix.Readable(rel) {
		return false
	}
	data, err := ix.Read(rel)
	if err != nil {
		return false
	}
	for _, w := range words {
		if bytes.Contains(data, []byte(w)) {
			return true
		}
	}
	return false
}

// Readable reports whether rel may be read: inside the tree, not a symlink (nor below
// one) and not refused by the Source.
func (ix *Index) Readable(rel string) bool {
	rel = filepath.ToSlash(filepath.Clean(rel))
	if rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return false
	}
	for p := rel; p != "." && p != "" && p != "/"; p = filepath.ToSlash(filepath.Dir(p)) {
		if _, ok := ix.snap.Refused[p]; ok {
			return false
		}
	}
	return true // every symlink is refused
}

func nodeToUnstructured(n *yaml.Node) (*unstructured.Unstructured, error) {
	data, err := yaml.Marshal(n)
	if err != nil {
		return nil, err
	}
	j, err := sigsyaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	return u, u.UnmarshalJSON(j)
}

// EachGitRepository calls fn for every GitRepository document of the tree's manifests
// (YAMLFiles), with its ref (namespace flux-system when the document has none).
func (ix *Index) EachGitRepository(fn func(ref graph.SourceRef, d Doc)) {
	for _, rel := range ix.YAMLFiles() {
		if !ix.Mentions(rel, "GitRepository") {
			continue
		}
		for _, d := range ix.Docs(rel) {
			if d.Kind != "GitRepository" || !strings.HasPrefix(d.APIVersion, "source.toolkit.fluxcd.io/") {
				continue
			}
			ns := d.Namespace
			if ns == "" {
				ns = "flux-system"
			}
			fn(graph.SourceRef{Kind: "GitRepository", Namespace: ns, Name: d.Name}, d)
		}
	}
}
