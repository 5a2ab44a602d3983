package helmfile

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"
)

// Files is the repository tree: repo-relative, slash-separated paths (render.Source).
type Files interface {
	RegularFiles() []string
	ReadFile(rel string) ([]byte, bool)
}

// Release is a helmfile release that installs Chart (the chart's name, as the chart
// catalog knows it) before Flux runs; File and Line locate its `- name:` entry.
type Release struct {
	File      string `json:"file"`
	Line      int    `json:"line"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Chart     string `json:"chart"`
	// NamespaceNotCreated is true when helmfile does not create Namespace: the helmfile is
	// only templated for its CRDs, or createNamespace is false.
	NamespaceNotCreated bool `json:"-"`
}

// Note is a release or file that could not be read without executing a template (or did
// not parse): its charts are not known to be installed.
type Note struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Text string `json:"text"`
	// TemplatedRelease names the release whose chart is a template's output, and
	// TemplatedNamespace its namespace ("" when not set or templated): the pipeline looks
	// for the HelmRelease that manages that Helm release.
	TemplatedRelease   string `json:"-"`
	TemplatedNamespace string `json:"-"`
	// NamespaceNotCreated is Release.NamespaceNotCreated for TemplatedRelease.
	NamespaceNotCreated bool `json:"-"`
}

func (n Note) String() string { return fmt.Sprintf("%s:%d: %s", n.File, n.Line, n.Text) }

// maxNesting bounds bases: and helmfiles: chains; maxLoads bounds the files parsed in all
// (a base named by many files, or a glob, is parsed once per use).
const (
	maxNesting = 16
	maxLoads   = 2000
)

// Read finds the helmfiles of the tree and returns the releases they install, sorted by
// file and line, with notes on what it could not read. A helmfile is a file helmfile
// itself loads by default (helmfile.yaml, helmfile.yaml.gotmpl, helmfile.d/*.y*ml and
// *.y*ml.gotmpl: pkg/app/app.go findDesiredStateFiles), a YAML file that declares the
// helmfile JSON schema (`$schema=https://json.schemastore.org/helmfile`, as bootstrap
// folders such as bootstrap/helmfile/apps.yaml do), or one that these name under
// helmfiles: or bases:. Files under dot-folders (.archive/) are not read.
func Read(files Files) ([]Release, []Note) {
	all := files.RegularFiles()
	r := &reader{files: files, all: all, seen: map[string]bool{}, releases: map[string]Release{}}
	for _, f := range all {
		if isHelmfile(f, files) {
			r.state(f, 0)
		}
	}
	out := make([]Release, 0, len(r.releases))
	for _, rel := range r.releases {
		out = append(out, rel)
	}
	slices.SortFunc(out, func(a, b Release) int { return byPlace(a.File, a.Line, b.File, b.Line) })
	slices.SortStableFunc(r.notes, func(a, b Note) int { return byPlace(a.File, a.Line, b.File, b.Line) })
	return out, r.notes
}

// byPlace orders by file, then line.
func byPlace(fa string, la int, fb string, lb int) int {
	return cmp.Or(strings.Compare(fa, fb), cmp.Compare(la, lb))
}

const schemaMark = "json.schemastore.org/helmfile"

func isHelmfile(f string, files Files) bool {
	if hidden(f) {
		return false
	}
	base, dir := path.Base(f), path.Base(path.Dir(f))
	yamlName := strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml") ||
		strings.HasSuffix(base, ".yaml.gotmpl") || strings.HasSuffix(base, ".yml.gotmpl")
	switch {
	case base == "helmfile.yaml" || base == "helmfile.yaml.gotmpl" || base == "helmfile.yml":
		return true
	case dir == "helmfile.d" && yamlName:
		return true
	case yamlName:
		data, _ := files.ReadFile(f)
		head := data
		if len(head) > 512 {
			head = head[:512]
		}
		return strings.Contains(string(head), schemaMark)
	}
	return false
}

func hidden(f string) bool {
	for _, seg := range strings.Split(path.Dir(f), "/") {
		if strings.HasPrefix(seg, ".") && seg != "." {
			return true
		}
	}
	return false
}

type reader struct {
	files    Files
	all      []string
	seen     map[string]bool
	releases map[string]Release // "file:line" → release
	notes    []Note
	noted    map[Note]bool
	loads    int
}

// note records a note once: a base read for several helmfiles repeats its notes.
func (r *reader) note(file string, line int, format string, args ...any) {
	r.add(Note{File: file, Line: line, Text: fmt.Sprintf(format, args...)})
}

func (r *reader) add(n Note) {
	if r.noted == nil {
		r.noted = map[Note]bool{}
	}
	if !r.noted[n] {
		r.noted[n] = true
		r.notes = append(r.notes, n)
	}
}

// state reads the helmfile f with its bases and records its releases; nested helmfiles
// are states of their own.
func (r *reader) state(f string, depth int) {
	if r.seen[f] {
		return
	}
	r.seen[f] = true
	parts, ok := r.load(f, depth)
	if !ok {
		return
	}
	templates := map[string]release{}
	var inherit []string
	var rels []release
	var hd helmDefaults
	for _, p := range parts {
		// Bases first, then the file's own parts: a later createNamespace wins, args add up.
		hd.Args = append(hd.Args, p.HelmDefaults.Args...)
		if p.HelmDefaults.CreateNamespace != nil {
			hd.CreateNamespace = p.HelmDefaults.CreateNamespace
		}
		maps.Copy(templates, p.Templates)
		inherit = append(inherit, p.DefaultInherit...)
		rels = append(rels, p.Releases...)
		for _, n := range p.Helmfiles {
			for _, nf := range r.resolve(f, n.line, n.Path, "helmfiles") {
				if depth < maxNesting {
					r.state(nf, depth+1)
				}
			}
		}
	}
	for _, rel := range rels {
		r.release(f, rel, templates, inherit, hd)
	}
}

// load parses f and, before it, its bases (helmfile merges bases first: pkg/state/create.go
// ParseAndLoad); each returned part carries the file its releases were written in.
func (r *reader) load(f string, depth int, chain ...string) ([]part, bool) {
	if r.loads++; r.loads > maxLoads {
		if r.loads == maxLoads+1 {
			r.note(f, 0, "more than %d helmfile loads (bases, helmfiles): the rest is not read", maxLoads)
		}
		return nil, false
	}
	data, ok := r.files.ReadFile(f)
	if !ok {
		return nil, false
	}
	dec := yaml.NewDecoder(strings.NewReader(neutralize(string(data))))
	var out []part
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				r.note(f, errLine(err), "not read: %v", err)
			}
			break
		}
		var p part
		if err := doc.Decode(&p); err != nil {
			r.note(f, doc.Line, "not read: %v", err)
			continue
		}
		for _, b := range p.Bases {
			for _, bf := range r.resolve(f, b.line, b.Path, "bases") {
				if bf == f || slices.Contains(chain, bf) {
					r.note(f, b.line, "bases entry %s includes itself: not read again", b.Path)
					continue
				}
				if depth >= maxNesting {
					r.note(f, b.line, "bases nested deeper than %d: not read", maxNesting)
					continue
				}
				bp, _ := r.load(bf, depth+1, append(chain, f)...)
				out = append(out, bp...)
			}
		}
		for i := range p.Releases {
			p.Releases[i].file = f
		}
		for k, t := range p.Templates {
			t.file = f
			p.Templates[k] = t
		}
		out = append(out, p)
	}
	return out, true
}

// resolve turns a bases:/helmfiles: entry into tree files: relative to f's folder, globs
// allowed (helmfiles: takes globs); a templated or absent path is a note.
func (r *reader) resolve(f string, line int, p, field string) []string {
	if isTemplated(p) {
		r.note(f, line, "%s entry is templated: not read", field)
		return nil
	}
	if strings.Contains(p, "://") || strings.HasPrefix(p, "git::") {
		r.note(f, line, "%s entry %s is remote: not read", field, p)
		return nil
	}
	want := path.Join(path.Dir(f), p)
	var out []string
	for _, c := range r.all {
		if ok, _ := doublestar.Match(want, c); ok {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		r.note(f, line, "%s entry %s: no such file in the repository", field, p)
	}
	return out
}

func errLine(err error) int {
	var n int
	if _, e := fmt.Sscanf(strings.TrimPrefix(err.Error(), "yaml: "), "line %d:", &n); e == nil {
		return n
	}
	return 0
}
