package fsys

import (
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
)

// SpecIgnore returns the spec.ignore patterns (one per line) of the GitRepositories among
// sources (the sources of the cluster roots), as source-controller applies them when it
// packs the artifact (GitRepository reconciler, storage.SourceIgnoreFilter).
func SpecIgnore(ix *index.Index, sources []graph.SourceRef) string {
	want := map[graph.SourceRef]bool{}
	for _, ref := range sources {
		if ref.Kind == "GitRepository" {
			want[ref] = true
		}
	}
	var out []string
	ix.EachGitRepository(func(ref graph.SourceRef, d index.Doc) {
		if ig := index.Scalar(index.Value(d.Node, "spec"), "ignore"); want[ref] && ig != "" {
			out = append(out, ig)
		}
	})
	return strings.Join(out, "\n")
}
