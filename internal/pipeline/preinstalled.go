package pipeline

import (
	"fmt"
	"sort"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render"
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
// drop it). Notes say which helmfile releases could not be read or have charts the
// catalog does not know.
func Preinstalled(cfg *config.Config, configPath string, src *render.Source) ([]PreinstalledGroup, []helmfile.Note) {
	if configPath == "" {
		configPath = config.FileName
	}
	from := map[string]string{}
	add := func(g, f string) {
		if _, ok := from[g]; !ok {
			from[g] = f
		}
	}
	var notes []helmfile.Note
	if src != nil {
		var rels []helmfile.Release
		rels, notes = helmfile.Read(src)
		for i, n := range notes {
			if rules.ChartGroups(n.TemplatedRelease) != nil {
				notes[i].Text += fmt.Sprintf(" (if its chart is %s, list it under preinstalledCRDs.charts)", n.TemplatedRelease)
			}
		}
		for _, r := range rels {
			groups := rules.ChartGroups(r.Chart)
			if groups == nil {
				notes = append(notes, helmfile.Note{File: r.File, Line: r.Line,
					Text: fmt.Sprintf("release %s: chart %s is not in the chart catalog; list its CRD groups under preinstalledCRDs.groups", r.Name, r.Chart)})
			}
			for _, g := range groups {
				add(g, fmt.Sprintf("helmfile %s:%d, chart %s", r.File, r.Line, r.Chart))
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
	out := make([]PreinstalledGroup, 0, len(from))
	for g, f := range from {
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
