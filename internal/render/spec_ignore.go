package render

import (
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// specIgnore returns the spec.ignore patterns (one per line) of the GitRepositories that
// are the sources of roots, as source-controller applies them when it packs the artifact.
func specIgnore(ix *index, roots []root) string {
	want := map[graph.SourceRef]bool{}
	for _, r := range roots {
		if r.ks.Spec.SourceRef.Kind == "GitRepository" {
			want[r.ks.Spec.SourceRef] = true
		}
	}
	var out []string
	eachGitRepository(ix, ix.yamlFiles(), func(ref graph.SourceRef, _ string, d doc) {
		if ig := scalar(value(d.Node, "spec"), "ignore"); want[ref] && ig != "" {
			out = append(out, ig)
		}
	})
	return strings.Join(out, "\n")
}
