package index

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/tiergate/tiergate/internal/render/rendertest"
)

// FuzzParseDocs feeds arbitrary bytes to Parse, which reads the identity and source line
// of every document of a manifest file. Invariants: it never panics; every line is within
// the file; and each document's identity is what a plain YAML decode of the same document
// reads (aliases and merge keys included), for the fields that decode as strings.
func FuzzParseDocs(f *testing.F) {
	rendertest.AddYAMLSeeds(f)
	f.Add([]byte("kind: &k ConfigMap\nmetadata: &m\n  name: a\n---\nkind: *k\nmetadata: *m\n"))
	f.Add([]byte("x: &base {namespace: ns}\nkind: Secret\nmetadata:\n  <<: *base\n  name: s\n"))
	f.Add([]byte("{apiVersion: v1, kind: Namespace, metadata: {name: n}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs := Parse(data)
		lines := bytes.Count(data, []byte("\n")) + 1
		for _, d := range docs {
			if d.Line < 1 || d.Line > lines {
				t.Errorf("document %s/%s at line %d, outside the file's %d lines", d.Kind, d.Name, d.Line, lines)
			}
		}
		want := decodedIdentities(data)
		if len(want) != len(docs) {
			t.Fatalf("Parse found %d mapping documents, a decode finds %d", len(docs), len(want))
		}
		for i, d := range docs {
			got := [4]string{d.APIVersion, d.Kind, d.Name, d.Namespace}
			for j, w := range want[i] {
				if w != nil && got[j] != *w {
					t.Errorf("document %d field %d = %q, a YAML decode reads %q", i, j, got[j], *w)
				}
			}
		}
	})
}

// decodedIdentities decodes each mapping document of data as yaml.v3 does into an
// interface value and returns apiVersion, kind, metadata.name and metadata.namespace; nil
// where the value is not a string (or the document does not decode), "" where it is absent.
func decodedIdentities(data []byte) [][4]*string {
	var out [][4]*string
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); errors.Is(err, io.EOF) || err != nil {
			return out
		}
		if len(n.Content) == 0 || n.Content[0].Kind != yaml.MappingNode {
			continue
		}
		var m map[string]any
		if err := n.Decode(&m); err != nil {
			out = append(out, [4]*string{}) // e.g. a duplicate key: nothing to compare
			continue
		}
		md, _ := m["metadata"].(map[string]any)
		out = append(out, [4]*string{str(m, "apiVersion"), str(m, "kind"), str(md, "name"), str(md, "namespace")})
	}
}

func str(m map[string]any, k string) *string {
	v, ok := m[k]
	if !ok {
		s := ""
		return &s
	}
	if s, ok := v.(string); ok {
		return &s
	}
	if _, ok := v.(map[string]any); ok {
		s := "" // a mapping is not an identity
		return &s
	}
	return nil
}

// TestDecodedIdentities checks the fuzz oracle itself.
func TestDecodedIdentities(t *testing.T) {
	got := decodedIdentities([]byte("kind: ConfigMap\nmetadata: {name: a, namespace: 3}\n"))
	if len(got) != 1 || *got[0][1] != "ConfigMap" || *got[0][2] != "a" || got[0][3] != nil || *got[0][0] != "" {
		t.Errorf("decodedIdentities = %v", got)
	}
}
