package index

import (
	"regexp"
	"strings"
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

// TestFieldKeyAsRegexp: fieldKey matches exactly the lines the regexp it replaces (compiled
// here per field, as KeyLine did per call) matches: indentation required, quotes either
// side, spaces before the colon, the field inside a longer key or value not.
func TestFieldKeyAsRegexp(t *testing.T) {
	lines := []string{"  %s:", "  %s :", "\t\"%s\": x", "  '%s' : 1", "%s:", "  x%s:", "  %sx:", "  %s", "  - %s:", "  %s\":", " \"%s:",
		"  a: %s:", "  ", ""}
	hits := 0
	for _, field := range []string{"path", "a.b", " path", "x*"} {
		re := regexp.MustCompile(`^\s+["']?` + regexp.QuoteMeta(field) + `["']?\s*:`)
		for _, shape := range lines {
			l := strings.ReplaceAll(shape, "%s", field)
			got, want := fieldKey(l, field), re.MatchString(l)
			if got != want {
				t.Errorf("fieldKey(%q, %q) = %v, the regexp %v", l, field, got, want)
			}
			if got {
				hits++
			}
		}
	}
	if hits == 0 {
		t.Error("no line matched")
	}
}
