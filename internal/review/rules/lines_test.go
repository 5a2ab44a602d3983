package rules

import (
	"testing"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestKeyLine: a key path is found among direct children only, inside the object's own
// document; the deepest key found and the count are returned.
func TestKeyLine(t *testing.T) {
	const file = "apps/hr.yaml"
	data := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\nspec:\n  version: 9.9.9\n---\n" + // lines 1-7
		"# a comment\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: app\n" + // 8-12
		"spec:\n  values:\n    image:\n      tag: v1\n    tag: top\n    \"quoted\": 1\n  chart:\n    spec:\n" + // 13-20
		"      chart: ./charts/app\n      version: 1.2.3\n  postRenderers:\n    - kustomize:\n        patches: []\n" + // 21-25
		"  flow: {a: 1}\n" // 26
	snap := graph.NewSnapshot("/repo")
	snap.Data[file] = []byte(data)
	c := &graph.Cluster{Source: snap}
	for _, tc := range []struct {
		path        []string
		line, found int
	}{
		{[]string{"spec", "chart", "spec", "version"}, 22, 4},
		{[]string{"spec", "values", "tag"}, 17, 3},          // not image.tag
		{[]string{"spec", "values", "image", "tag"}, 16, 4}, // its own tag
		{[]string{"spec", "values", "quoted"}, 18, 3},
		{[]string{"spec", "values", "image", "repository"}, 15, 3},
		{[]string{"spec", "postRenderers", "kustomize", "patches"}, 25, 4},
		{[]string{"spec", "flow", "a"}, 26, 2},
		{[]string{"status"}, 10, 0},
		{[]string{"spec", "version"}, 13, 1}, // the ConfigMap's is another document
	} {
		line, found := keyLine(c, file, 10, tc.path...)
		if line != tc.line || found != tc.found {
			t.Errorf("keyLine(%v) = %d, %d; want %d, %d", tc.path, line, found, tc.line, tc.found)
		}
	}
	if line, found := keyLine(&graph.Cluster{}, file, 10, "spec"); line != 10 || found != 0 {
		t.Errorf("no artifact: %d, %d; want 10, 0", line, found)
	}
}
