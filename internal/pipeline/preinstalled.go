package pipeline

import (
	"fmt"
	"sort"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helmfile"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// PreinstalledGroup is an API group whose CRDs exist before Flux reconciles anything, and
// where that is known from: "helmfile bootstrap/helmfile.d/01-apps.yaml:12, chart
// cert-manager" or ".tiergate.yaml".
type PreinstalledGroup struct {
	Group string `json:"group"`
	From  string `json:"from"`
}

func (p PreinstalledGroup) String() string { return fmt.Sprintf("%s (%s)", p.Group, p.From) }

// Preinstalled is what exists before Flux runs: the CRD groups of the charts the tree's
// bootstrap helmfiles install (helmfile.Read, through the chart catalog) and the
// preinstalledCRDs of cfg (read from configPath, or the tree's .tiergate.yaml), sorted by
// group, each with its first source (helmfiles before the configuration, which may then
// drop it). A release whose chart is templated takes the chart of the one HelmRelease of
// g (the head graph; nil for none) that manages the same Helm release — release name and
// storage namespace equal the helmfile release's name and namespace (matchRelease).
// Notes say which helmfile releases could not be read or have charts the catalog does
// not know.
func Preinstalled(cfg *config.Config, configPath string, src *fsys.Source, g *graph.Graph) ([]PreinstalledGroup, []helmfile.Note) {
	if configPath == "" {
		configPath = config.FileName
	}
	source := map[string]string{} // group → where it is known from (the first)
	add := func(g, f string) {
		if _, ok := source[g]; !ok {
			source[g] = f
		}
	}
	var notes []helmfile.Note
	if g != nil {
		if sf := render.SourceFiles(g); sf != nil {
			src = sf // the helmfiles the cluster's sources hold, not fixtures the artifact leaves out
		}
	}
	if src != nil {
		rels, read := helmfile.Read(src)
		via := make([]string, len(rels)) // the HelmRelease a templated chart was taken from
		idx := releaseIndex(g)
		for _, n := range read {
			if n.TemplatedRelease == "" {
				notes = append(notes, n)
				continue
			}
			chart, hr, why := matchRelease(idx, n.TemplatedRelease, n.TemplatedNamespace)
			if chart != "" {
				rels = append(rels, helmfile.Release{File: n.File, Line: n.Line, Name: n.TemplatedRelease, Namespace: n.TemplatedNamespace, Chart: chart})
				via = append(via, hr)
				continue
			}
			n.Text += "; " + why
			if rules.ChartGroups(n.TemplatedRelease) != nil {
				n.Text += fmt.Sprintf(" (if its chart is %s, list it under preinstalledCRDs.charts)", n.TemplatedRelease)
			}
			notes = append(notes, n)
		}
		for i, r := range rels {
			groups := rules.ChartGroups(r.Chart)
			taken, of := "", ""
			if via[i] != "" {
				taken = fmt.Sprintf(", from HelmRelease %s (release name and namespace match)", via[i])
				of = fmt.Sprintf(" (the chart of HelmRelease %s: release name and namespace match)", via[i])
			}
			if groups == nil {
				notes = append(notes, helmfile.Note{File: r.File, Line: r.Line,
					Text: fmt.Sprintf("release %s: chart %s%s is not in the chart catalog; list its CRD groups under preinstalledCRDs.groups", r.Name, r.Chart, of)})
			}
			for _, g := range groups {
				add(g, fmt.Sprintf("helmfile %s:%d, chart %s%s", r.File, r.Line, r.Chart, taken))
			}
		}
	}
	for _, g := range cfg.PreinstalledCRDs.Groups {
		add(g, configPath)
	}
	for _, ch := range cfg.PreinstalledCRDs.Charts {
		for _, g := range rules.ChartGroups(ch) {
			add(g, configPath+", chart "+ch)
		}
	}
	out := make([]PreinstalledGroup, 0, len(source))
	for g, f := range source {
		out = append(out, PreinstalledGroup{Group: g, From: f})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	sort.SliceStable(notes, func(i, j int) bool {
		if notes[i].File != notes[j].File {
			return notes[i].File < notes[j].File
		}
		return notes[i].Line < notes[j].Line
	})
	return out, notes
}

// preinstalledConfig is pre as the catalog takes it.
func preinstalledConfig(pre []PreinstalledGroup) config.Preinstalled {
	var p config.Preinstalled
	for _, g := range pre {
		p.Groups = append(p.Groups, g.Group)
	}
	return p
}

// unknownCRDs names the bootstrap helmfile releases whose CRD groups are unknown (notes of
// Preinstalled), for rules.Env.UnknownCRDs: "the bootstrap helmfile release at helmfile.yaml:12".
func unknownCRDs(notes []helmfile.Note) []string {
	var out []string
	for _, n := range notes {
		out = append(out, fmt.Sprintf("the bootstrap helmfile release at %s:%d", n.File, n.Line))
	}
	return out
}

// BootstrapNamespaces is the set of namespaces the tree's bootstrap helmfiles install
// releases into, for rules.Env.BootstrapNamespaces: helmfile creates a release's namespace
// before it installs it (helmDefaults.createNamespace defaults to true), except where it
// only templates the release (a crds-only helmfile) or createNamespace is false
// (helmfile.Release.NamespaceNotCreated). The helmfiles are
// those Preinstalled reads (the cluster sources' files when g has them).
func BootstrapNamespaces(src *fsys.Source, g *graph.Graph) map[string]bool {
	if g != nil {
		if sf := render.SourceFiles(g); sf != nil {
			src = sf
		}
	}
	out := map[string]bool{}
	if src == nil {
		return out
	}
	rels, notes := helmfile.Read(src)
	for _, r := range rels {
		if r.Namespace != "" && !r.NamespaceNotCreated {
			out[r.Namespace] = true
		}
	}
	for _, n := range notes {
		if n.TemplatedNamespace != "" && !n.NamespaceNotCreated {
			out[n.TemplatedNamespace] = true
		}
	}
	return out
}
