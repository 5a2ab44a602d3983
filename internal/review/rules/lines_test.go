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

// TestDependsOnEntryFlow: a flow-style `dependsOn: [{name: a}]` is located at its own line;
// the search never leaves the object's document, so a later document's `- name: a` (another
// Kustomization's dependsOn, or its metadata name) is not taken for it.
func TestDependsOnEntryFlow(t *testing.T) {
	const file = "clusters/dev/tiers.yaml"
	data := "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: b\n  namespace: flux-system\n" + // 1-5
		"spec:\n  dependsOn: [{name: a}, {name: \"c\", namespace: x}]\n  path: ./b\n---\n" + // 6-9
		"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: d\n" + // 10-13
		"spec:\n  dependsOn:\n    - name: a\n    - name: c\n  path: ./d\n---\n" + // 14-19
		"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: e\nspec:\n  path: ./e\n" + // 20-25
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n" // 26-30
	snap := graph.NewSnapshot("/repo")
	snap.Data[file] = []byte(data)
	c := &graph.Cluster{Source: snap}
	for _, tc := range []struct {
		from int
		name string
		want int
	}{
		{2, "a", 7}, {2, "c", 7}, // flow style: the dependsOn line itself
		{11, "a", 16}, {11, "c", 17}, // block style in the next document
		{2, "missing", 2}, {21, "a", 21}, // negatives: absent in the document (e has no dependsOn; a ConfigMap a follows)
		{2, "name", 2}, // negative: a key, not a value
	} {
		if got := dependsOnEntry(c, file, tc.from, tc.name); got != tc.want {
			t.Errorf("dependsOnEntry(from %d, %q) = %d, want %d", tc.from, tc.name, got, tc.want)
		}
	}
	// Every lookup stays in the document: textLine and varLine too.
	if got := textLine(c, &graph.Object{File: file, Line: 21}, "name: a"); got != 21 {
		t.Errorf("textLine from e = %d, want 21 (its own line: the text is only in later documents)", got)
	}
}
