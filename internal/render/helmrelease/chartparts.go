package helmrelease

import (
	"encoding/json"
	"hash"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// SecretTemplatesNote is the graph.Release.Approximate entry of a release whose chart's
// templates hold a value of the cluster's Secrets (a chart folder that is also a
// Kustomization's path, a template file a kustomization.yaml lists as a Secret): the value
// is replaced by its placeholder in the template text, so the template renders the
// placeholder, and one whose value stood inside an action may render, or fail, otherwise.
const SecretTemplatesNote = "Secret values in chart templates replaced by placeholders (a template rewritten so may render or fail otherwise than in the cluster)"

// chartParts replaces m's values, by value, in what Helm's loader takes of ch beside its
// files (helm.sh/helm/v4 pkg/chart/v2/loader/load.go LoadFiles: templates/ as Templates,
// values.yaml as Values, values.schema.json as Schema, Chart.yaml as Metadata), into c, a
// copy of ch; the engine gives them to templates as the template text, .Values and .Chart,
// and the schema's errors quote values (pkg/chart/common/util/jsonschema.go). Each part
// rewritten is named (under prefix) and written into sum. It reports whether a part was
// rewritten, and whether a template was. A placeholder is a plain token, so a value
// replaced in a template's text stays a value; a value that was template syntax is no
// longer parsed as such (SecretTemplatesNote).
func (m *fileMask) chartParts(ch, c *chart.Chart, prefix string, sum hash.Hash) (changed, templates bool) {
	if m.r == nil {
		return false, false
	}
	if t, ok := m.replaceFiles(ch.Templates, prefix, sum); ok {
		c.Templates, changed, templates = t, true, true
	}
	if v, ok := m.replaceTree(ch.Values); ok {
		vals, _ := v.(map[string]any)
		c.Values, changed = vals, true
		writeJSON(sum, prefix+"values.yaml", vals)
	}
	if len(ch.Schema) > 0 {
		if s := m.replace(ch.Schema); string(s) != string(ch.Schema) {
			c.Schema, changed = s, true
			writePart(sum, prefix+"values.schema.json", s)
		}
	}
	if md, ok := m.replaceMetadata(ch.Metadata); ok {
		c.Metadata, changed = md, true
		writeJSON(sum, prefix+"Chart.yaml", md)
	}
	return changed, templates
}

// replaceFiles returns files with m's values replaced, and true, when one holds a value.
func (m *fileMask) replaceFiles(files []*common.File, prefix string, sum hash.Hash) ([]*common.File, bool) {
	var out []*common.File
	for i, f := range files {
		data := m.replace(f.Data)
		if string(data) == string(f.Data) {
			continue
		}
		if out == nil {
			out = append([]*common.File(nil), files...)
		}
		nf := *f
		nf.Data = data
		out[i] = &nf
		writePart(sum, prefix+f.Name, data)
	}
	return out, out != nil
}

// replaceTree returns a copy of v (decoded YAML or JSON: maps, lists, scalars) with m's
// values replaced in its strings, keys included, and true, when one holds a value; v itself
// and false when none does (v is never changed: a chart's values are shared).
func (m *fileMask) replaceTree(v any) (any, bool) {
	switch t := v.(type) {
	case string:
		s := string(m.replace([]byte(t)))
		return s, s != t
	case map[string]any:
		var out map[string]any
		for k, e := range t {
			nk := string(m.replace([]byte(k)))
			ne, ok := m.replaceTree(e)
			if !ok && nk == k {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(t))
				for k2, e2 := range t {
					out[k2] = e2
				}
			}
			delete(out, k)
			out[nk] = ne
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []any:
		var out []any
		for i, e := range t {
			if ne, ok := m.replaceTree(e); ok {
				if out == nil {
					out = append([]any(nil), t...)
				}
				out[i] = ne
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}

// replaceMetadata returns a copy of md (Chart.yaml, which templates read as .Chart) with
// m's values replaced in its strings, and true, when one holds a value; md and false when
// none does, or it does not encode as JSON and back (not reached: it is a plain struct).
func (m *fileMask) replaceMetadata(md *chart.Metadata) (*chart.Metadata, bool) {
	if md == nil {
		return md, false
	}
	raw, err := json.Marshal(md)
	if err != nil || !m.heads.anyIn(raw) {
		return md, false
	}
	var tree any
	if json.Unmarshal(raw, &tree) != nil {
		return md, false
	}
	nt, ok := m.replaceTree(tree)
	if !ok {
		return md, false
	}
	b, err := json.Marshal(nt)
	if err != nil {
		return md, false
	}
	var out chart.Metadata
	if json.Unmarshal(b, &out) != nil {
		return md, false
	}
	return &out, true
}

// writePart names a rewritten part and its bytes in sum (the chart's render cache key).
func writePart(sum hash.Hash, name string, data []byte) {
	sum.Write([]byte(name + "\x00"))
	sum.Write(data)
	sum.Write([]byte{0})
}

// writeJSON is writePart of v as encoding/json writes it (map keys sorted).
func writeJSON(sum hash.Hash, name string, v any) {
	b, _ := json.Marshal(v)
	writePart(sum, name, b)
}
