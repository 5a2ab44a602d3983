package rules

import (
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// FuzzKeyLine reads arbitrary files (a PR's manifests are untrusted) with keyLine,
// valueLine and causeOf. Invariants: nothing panics; a line is within the file, or the
// starting line when nothing is found; found never exceeds the path's length.
func FuzzKeyLine(f *testing.F) {
	f.Add("apiVersion: v2\nkind: HelmRelease\nspec:\n  values:\n    image:\n      tag: v1\n", 2, "image.tag")
	f.Add("---\nkind: X\n- - a: b\n  \"q\": {x: 1}\n\xff\xfe: 1\n---\n", 2, "a.b")
	f.Add("", 1, "")
	f.Fuzz(func(t *testing.T, data string, from int, key string) {
		snap := graph.NewSnapshot("/repo")
		snap.Data["f.yaml"] = []byte(data)
		c := &graph.Cluster{Source: snap}
		n := strings.Count(data, "\n") + 1
		path := append([]string{"spec", "values"}, strings.Split(key, ".")...)
		line, found := keyLine(c, "f.yaml", from, path...)
		if found > len(path) || found < 0 {
			t.Fatalf("found %d of %d keys", found, len(path))
		}
		if found > 0 && (line < 1 || line > n) {
			t.Fatalf("line %d outside the file's %d lines", line, n)
		}
		if found == 0 && line != from {
			t.Fatalf("nothing found, line %d, want %d", line, from)
		}
		if l, ok := valueLine(c, "f.yaml", from, key, "spec", "values"); ok && (l < 1 || l > n) {
			t.Fatalf("value line %d outside the file's %d lines", l, n)
		}
		if from >= 1 && from <= n {
			o := &graph.Object{File: "f.yaml", Line: from}
			causeOf(c, o, "ns/hr", "render HelmRelease ns/hr (chart app 1.0.0): execution error at (app/templates/x.yaml:1:2): "+key+" is required")
			causeOf(c, o, "ns/hr", "values don't meet the specifications of the schema(s) in the following chart(s):\napp:\n- at '/"+key+"': "+data)
		}
	})
}
