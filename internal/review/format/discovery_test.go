package format

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review"
)

// TestMarkdownNoFluxRoot: when no Flux root exists, the lines under the verdict say that
// folders stand in for clusters; with roots, nothing is said.
func TestMarkdownNoFluxRoot(t *testing.T) {
	clusters := []review.ClusterSummary{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	got := strings.Split(Markdown(&review.Report{Discovery: graph.DiscoveryFolders, Clusters: clusters}, MarkdownOptions{}), "\n")[1:4]
	want := []string{
		"### ✅ tiergate: no new findings",
		"",
		"> no Flux root found; reviewing 3 folders as clusters (folders of Kustomizations that no other Kustomization's path covers; " +
			"a bootstrap gotk-sync.yaml, a FluxInstance or `clusters:` in .tiergate.yaml names the real ones)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("first lines (-want +got):\n%s", d)
	}
	got = strings.Split(Markdown(&review.Report{Discovery: graph.DiscoveryRoots, Clusters: clusters}, MarkdownOptions{}), "\n")[1:4]
	if strings.Contains(strings.Join(got, "\n"), "no Flux root") {
		t.Errorf("roots found, yet the comment says none was:\n%s", strings.Join(got, "\n"))
	}
}
