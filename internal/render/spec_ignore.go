package render

import (
	"strings"

	"github.com/tiergate/tiergate/internal/render/discover"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
)

// specIgnore returns the spec.ignore patterns (one per line) of the GitRepositories that
// are the sources of roots, as source-controller applies them when it packs the artifact.
func specIgnore(ix *index.Index, roots []discover.Root) string {
	want := map[graph.SourceRef]bool{}
	for _, r := range roots {
		if r.KS.Spec.SourceRef.Kind == "GitRepository" {
			want[r.KS.Spec.SourceRef] = true
		}
	}
	var out []string
	discover.EachGitRepository(ix, ix.YAMLFiles(), func(ref graph.SourceRef, _ string, d index.Doc) {
		if ig := index.Scalar(index.Value(d.Node, "spec"), "ignore"); want[ref] && ig != "" {
			out = append(out, ig)
		}
	})
	return strings.Join(out, "\n")
}
