package rules

import (
	"bytes"
	"errors"
	"io"

	"gopkg.in/yaml.v3"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// fileDocs indexes the top-level mappings of a file's YAML documents, decoded up to the
// first that fails, by the line of their `kind:` key: any of them (byAnyKind) and the last,
// the one a decoder keeps (byLastKind); the first document wins a line.
type fileDocs struct {
	byAnyKind, byLastKind map[int]*yaml.Node
}

// docsOf returns file's documents, decoded once per snapshot (graph.Snapshot.Memo):
// decoding the whole file for each finding about one of its N objects was quadratic.
func docsOf(c *graph.Cluster, file string) *fileDocs {
	data, ok := c.ReadFile(file)
	if !ok {
		return &fileDocs{}
	}
	return c.Source.Memo("rules.docs\x00"+file, func() any { return indexDocs(data) }).(*fileDocs)
}

func indexDocs(data []byte) *fileDocs {
	d := &fileDocs{byAnyKind: map[int]*yaml.Node{}, byLastKind: map[int]*yaml.Node{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); errors.Is(err, io.EOF) || err != nil {
			return d
		}
		if len(n.Content) == 0 || n.Content[0].Kind != yaml.MappingNode {
			continue
		}
		m := n.Content[0]
		last := 0
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value != "kind" {
				continue
			}
			last = m.Content[i].Line
			if _, ok := d.byAnyKind[last]; !ok {
				d.byAnyKind[last] = m
			}
		}
		if _, ok := d.byLastKind[last]; !ok {
			d.byLastKind[last] = m
		}
	}
}
