package rules

import (
	"testing"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// docAt and docMapAt find a document by the line of its kind: key, from one decoding of
// the file per snapshot: a repeated kind key is found by any of its lines for docMapAt and
// by the last for docAt, a document without kind by line 0 for docAt, nothing after the
// first document that does not parse, nothing in a file the snapshot lacks.
func TestDocsByKindLine(t *testing.T) {
	c := &graph.Cluster{Source: graph.NewSnapshot("/repo")}
	c.Source.Data["m.yaml"] = []byte(`kind: ConfigMap
metadata:
  name: a
---
- not a mapping
---
apiVersion: v1
kind: Secret
metadata: {name: b}
kind: Namespace
---
metadata:
  name: nokind
---
kind: Service
metadata:
  name: first
  name: second
---
kind: [unclosed
---
kind: Pod
metadata:
  name: after-error
`)
	for _, q := range []struct {
		line       int
		kind, name string
		mapping    bool
	}{
		{1, "ConfigMap", "a", true},
		{8, "", "", true},               // the first kind key of a repeated one: docMapAt only
		{10, "Namespace", "b", true},    // the last: both, its value the last
		{0, "", "nokind", false},        // no kind key: docAt's kind line is 0
		{15, "Service", "second", true}, // a repeated name: the last
		{2, "", "", false},
		{21, "", "", false}, // after the document that fails
	} {
		kind, name := docAt(c, "m.yaml", q.line)
		if kind != q.kind || name != q.name {
			t.Errorf("docAt(line %d) = %q, %q; want %q, %q", q.line, kind, name, q.kind, q.name)
		}
		if m := docMapAt(c, "m.yaml", q.line); (m != nil) != q.mapping {
			t.Errorf("docMapAt(line %d) = %v, want a mapping: %t", q.line, m, q.mapping)
		}
	}
	if n, line := nameAt(c, "m.yaml", 15); n != "first" || line != 17 {
		t.Errorf("nameAt(line 15) = %q, %d; want first, 17", n, line)
	}
	if docsOf(c, "m.yaml") != docsOf(c, "m.yaml") {
		t.Error("docsOf decoded the file again")
	}
	if kind, name := docAt(c, "gone.yaml", 1); kind != "" || name != "" || docMapAt(c, "gone.yaml", 1) != nil {
		t.Errorf("gone.yaml: docAt = %q, %q", kind, name)
	}
	if kind, _ := docAt(&graph.Cluster{}, "m.yaml", 1); kind != "" {
		t.Errorf("no Source: docAt = %q", kind)
	}
}
