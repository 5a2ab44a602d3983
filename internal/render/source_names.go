package render

import (
	"sort"
	"strings"

	"github.com/fluxcd/pkg/sourceignore"
	"github.com/fluxcd/pkg/sourceignore/gitignore"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// RegularFiles lists the repo-relative paths of the regular files whose content the source
// holds, sorted; tree discovery outside the Flux graph (bootstrap helmfiles) walks them.
func (s *Source) RegularFiles() []string {
	out := make([]string, 0, len(s.snap.data))
	for rel := range s.snap.data {
		if s.snap.knows(rel) {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

// SourceFiles is what the graph's clusters' sources contain: the files of the folders the
// review maps their Kustomizations' sources to (the root's GitRepository is the repository,
// a .tiergate.yaml source its folder), each less its GitRepository's spec.ignore (relative
// to the folder, as source-controller packs the artifact), after the tree's .sourceignore
// rules (Options.SourceIgnore). A fixture folder that no source packs is not in it. Nil for
// a graph without clusters.
func (g *Graph) SourceFiles() *Source {
	var snap *snapshot
	var views []sourceView
	for _, c := range g.Clusters {
		if c.source != nil {
			snap = c.source
			views = append(views, c.sources...)
		}
	}
	if snap == nil {
		return nil
	}
	if len(views) == 0 {
		return &Source{snap: snap} // no source tiergate maps: which files count is unknown
	}
	matchers := make([]func(rel string) bool, len(views))
	for i, v := range views {
		matchers[i] = v.contains()
	}
	return &Source{snap: snap.without(func(rel string, dir bool) bool {
		if dir {
			return true // a folder stays when a file below it does
		}
		for _, m := range matchers {
			if m(rel) {
				return false
			}
		}
		return true
	})}
}

// sourceView is a folder of the repository that a cluster's source packs into its artifact,
// with that GitRepository's spec.ignore patterns ("" for none).
type sourceView struct{ dir, ignore string }

// contains returns whether a repo-relative file is in v's artifact.
func (v sourceView) contains() func(rel string) bool {
	var domain []string
	if v.dir != "" && v.dir != "." {
		domain = strings.Split(v.dir, "/")
	}
	var m gitignore.Matcher
	if v.ignore != "" {
		m = sourceignore.NewMatcher(sourceignore.ReadPatterns(strings.NewReader(v.ignore), domain))
	}
	return func(rel string) bool {
		if len(domain) > 0 && !strings.HasPrefix(rel, v.dir+"/") {
			return false
		}
		return m == nil || !m.Match(strings.Split(rel, "/"), false)
	}
}

// sourceViews lists the folders c's Kustomizations build from (sourceRoot), once each,
// with the spec.ignore of each GitRepository of the graph among their sources. The root
// that .tiergate.yaml configures is tiergate's stand-in, not an object of the cluster: its
// sourceRef names no artifact, so only the Kustomizations it applies count.
func (r *renderer) sourceViews(c *Cluster, rt root, rootSrc SourceRef) []sourceView {
	seen := map[SourceRef]bool{}
	var out []sourceView
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		s := ks.Spec.SourceRef
		if ks.Skipped != "" || seen[s] || (ref == c.Root && rt.synthetic && rt.by == DiscoveryConfig) {
			continue
		}
		seen[s] = true
		dir, ok := r.sourceRoot(s, rootSrc)
		if !ok {
			continue
		}
		v := sourceView{dir: dir}
		if b := sourceBody(c, s); b != nil && s.Kind == "GitRepository" {
			v.ignore, _, _ = unstructured.NestedString(b.Object, "spec", "ignore")
		}
		out = append(out, v)
	}
	return out
}
