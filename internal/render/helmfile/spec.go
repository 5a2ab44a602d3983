package helmfile

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// part is one `---` part of a helmfile, the fields of helmfile's HelmState that say what
// is installed (pkg/state/state.go: Bases, Helmfiles, HelmDefaults, Templates,
// DefaultInherit, Releases).
type part struct {
	Bases          []ref              `yaml:"bases"`
	HelmDefaults   helmDefaults       `yaml:"helmDefaults"`
	Helmfiles      []ref              `yaml:"helmfiles"`
	Templates      map[string]release `yaml:"templates"`
	DefaultInherit stringList         `yaml:"defaultInherit"`
	Releases       []release          `yaml:"releases"`
}

// helmDefaults holds the HelmSpec fields that decide whether a release's namespace is
// created (pkg/state/state.go HelmSpec: Args, CreateNamespace, true when not set).
type helmDefaults struct {
	Args            []string `yaml:"args"`
	CreateNamespace *bool    `yaml:"createNamespace"`
}

// templateOnly reports whether args hold a flag that only `helm template` takes
// (--include-crds: helm pkg/cmd/template.go; install and upgrade refuse it as unknown):
// helmfile passes helmDefaults.args to every helm call, so such a helmfile is only ever
// templated — its CRDs piped to kubectl, as bootstrap/helmfile/crds.yaml files are — and
// never creates a namespace.
func templateOnly(args []string) bool {
	for _, a := range args {
		if a == "--include-crds" || strings.HasPrefix(a, "--include-crds=") {
			return true
		}
	}
	return false
}

// ref is a bases: or helmfiles: entry: a path, or {path: …} (SubHelmfileSpec).
type ref struct {
	Path string
	line int
}

func (r *ref) UnmarshalYAML(n *yaml.Node) error {
	r.line = n.Line
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&r.Path)
	}
	var s struct {
		Path string `yaml:"path"`
	}
	err := n.Decode(&s)
	r.Path = s.Path
	return err
}

// stringList is a string or a list of strings.
type stringList []string

func (l *stringList) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*l = stringList{n.Value}
		return nil
	}
	var s []string
	err := n.Decode(&s)
	*l = s
	return err
}

// release holds the ReleaseSpec fields that decide whether and which chart is installed
// (pkg/state/state.go ReleaseSpec: chart, name, namespace, installed, condition, inherit).
// Installed stays text: true, false or a template's output.
type release struct {
	Name      string `yaml:"name"`
	Namespace string `yaml:"namespace"`
	Chart     string `yaml:"chart"`
	Installed string `yaml:"installed"`
	Condition string `yaml:"condition"`
	// CreateNamespace overrides helmDefaults.createNamespace (ReleaseSpec.CreateNamespace).
	CreateNamespace *bool `yaml:"createNamespace"`
	Inherit         []struct {
		Template string `yaml:"template"`
	} `yaml:"inherit"`
	line int
	file string
}

func (r *release) UnmarshalYAML(n *yaml.Node) error {
	type plain release
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*r = release(p)
	r.line = n.Line
	return nil
}

// withTemplates fills the fields r leaves empty from the templates it inherits, the
// explicit inherit: first, then defaultInherit (the release's own fields win).
func (r release) withTemplates(templates map[string]release, defaults []string) (release, []string) {
	var names []string
	for _, in := range r.Inherit {
		names = append(names, in.Template)
	}
	names = append(names, defaults...)
	var missing []string
	for _, name := range names {
		t, ok := templates[name]
		if !ok {
			missing = append(missing, name)
			continue
		}
		fill(&r.Chart, t.Chart)
		fill(&r.Namespace, t.Namespace)
		fill(&r.Installed, t.Installed)
		fill(&r.Condition, t.Condition)
		if r.CreateNamespace == nil {
			r.CreateNamespace = t.CreateNamespace
		}
	}
	return r, missing
}

func fill(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// release records rel when it is installed and its chart is known, else notes why not.
// Not installed: `installed: false` (ReleaseSpec.Desired, pkg/state/release.go).
// hd is the state's helmDefaults: a release whose namespace helmfile does not create says
// so (NamespaceNotCreated).
func (r *reader) release(state string, rel release, templates map[string]release, defaults []string, hd helmDefaults) {
	rel, missing := rel.withTemplates(templates, defaults)
	noNamespace := !createsNamespace(rel, hd)
	name := rel.Name
	if isTemplated(name) || name == "" {
		name = "(templated name)"
	}
	switch {
	case len(missing) > 0:
		r.note(rel.file, rel.line, "release %s inherits template %s, which is not defined: not read", name, strings.Join(missing, ", "))
		return
	case rel.Installed == "false":
		return
	case isTemplated(rel.Installed):
		r.note(rel.file, rel.line, "release %s: installed is templated: not read", name)
		return
	case rel.Condition != "":
		r.note(rel.file, rel.line, "release %s is installed only when %s is true: not read", name, rel.Condition)
		return
	case isTemplated(rel.Chart):
		n := Note{File: rel.file, Line: rel.line, Text: fmt.Sprintf("release %s: chart is templated: not read", name)}
		if !isTemplated(rel.Name) {
			n.TemplatedRelease, n.NamespaceNotCreated = rel.Name, noNamespace
			if !isTemplated(rel.Namespace) {
				n.TemplatedNamespace = rel.Namespace
			}
		}
		r.add(n)
		return
	case rel.Chart == "":
		r.note(rel.file, rel.line, "release %s has no chart: not read", name)
		return
	}
	chart := r.chartName(rel.file, rel.Chart)
	key := rel.file + ":" + strconv.Itoa(rel.line)
	r.releases[key] = Release{File: rel.file, Line: rel.line, Name: rel.Name, Namespace: rel.Namespace, Chart: chart, NamespaceNotCreated: noNamespace}
}

// createsNamespace reports whether helmfile creates rel's namespace before it installs it:
// --create-namespace is passed when createNamespace (the release's, else helmDefaults')
// is true or not set (pkg/state/state.go HelmSpec.CreateNamespace, ReleaseSpec
// .CreateNamespace), and never for a helmfile that is only templated (templateOnly).
func createsNamespace(rel release, hd helmDefaults) bool {
	if templateOnly(hd.Args) {
		return false
	}
	if rel.CreateNamespace != nil {
		return *rel.CreateNamespace
	}
	return hd.CreateNamespace == nil || *hd.CreateNamespace
}

// chartName is the chart's name in chart: — `repo/name`, `oci://host/…/name[:tag]`, or a
// local folder whose Chart.yaml names it (helmfile's isLocalChart, pkg/state/util.go:
// absolute, no slash, or not repo/name).
func (r *reader) chartName(file, chart string) string {
	if i := strings.Index(chart, "://"); i >= 0 {
		last := path.Base(chart[i+3:])
		if j := strings.IndexAny(last, ":@"); j >= 0 {
			last = last[:j]
		}
		return last
	}
	segs := strings.Split(chart, "/")
	local := path.IsAbs(chart) || strings.HasPrefix(chart, ".") || len(segs) == 1 || (len(segs) != 2 && len(segs) != 3)
	if !local {
		return segs[len(segs)-1]
	}
	dir := path.Join(path.Dir(file), chart)
	if data, ok := r.files.ReadFile(path.Join(dir, "Chart.yaml")); ok {
		var meta struct {
			Name string `yaml:"name"`
		}
		if yaml.Unmarshal(data, &meta) == nil && meta.Name != "" {
			return meta.Name
		}
	}
	return path.Base(chart)
}
