package index

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/rendertest"
)

// TestEachGitRepository: every source-controller GitRepository of the tree's manifests,
// in file order, namespace flux-system when it has none; not another group's
// GitRepository, another kind, or a file that is no manifest.
func TestEachGitRepository(t *testing.T) {
	ix := New(rendertest.Snapshot(map[string]string{
		"a/sync.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: one}\n---\n" +
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: two, namespace: apps}\n---\n" +
			"apiVersion: example.com/v1\nkind: GitRepository\nmetadata: {name: other-group}\n---\n" +
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {name: oci}\n",
		"b/repo.yml":  "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: three, namespace: x}\n",
		"c/notes.txt": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: text}\n",
	}), nil)
	var got []string
	ix.EachGitRepository(func(ref graph.SourceRef, d Doc) { got = append(got, ref.String()+" "+d.Name) })
	want := []string{"GitRepository/flux-system/one one", "GitRepository/apps/two two", "GitRepository/x/three three"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("GitRepositories (-want +got):\n%s", d)
	}
}
