package helmrelease

import (
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// TestChartParts: a chart whose templates read no file still has the cluster's Secret
// values replaced in its templates, values (keys and nested lists too), schema and
// Chart.yaml, by the same placeholder in each, with the template note; a value none holds,
// a part holding none (the same *common.File) and the loaded chart stay as they are
// (hostile8 c01, c02, c03, c17).
func TestChartParts(t *testing.T) {
	p := NewPlaceholders(make([]byte, 32))
	v := "Pq7partsval9"
	tpl := &common.File{Name: "templates/secret.yaml", Data: []byte("# {{ define \"c\" }}\nstringData:\n  pw: \"{{ " + v + " }}\"\n# {{ end }}\n")}
	plain := &common.File{Name: "templates/cm.yaml", Data: []byte("data: {{ .Values.x | quote }}\n")}
	ch := &chart.Chart{
		Metadata:  &chart.Metadata{Name: "c", Version: "0.1.0", Description: "pw " + v},
		Templates: []*common.File{tpl, plain},
		Values:    map[string]any{"stringData": map[string]any{"pw": v}, "list": []any{"a", v}, v: "key", "n": 3},
		Schema:    []byte(`{"properties":{"pw":{"const":"` + v + `"}}}`),
	}
	got, fs := p.ChartFiles(ch, []string{v, "Unheldval9"})
	if !fs.Replaced || !fs.Templates || fs.Digest == "" {
		t.Fatalf("FileSecrets = %+v, want Replaced, Templates and a digest", fs)
	}
	ph := p.Text(v)
	if want := "# {{ define \"c\" }}\nstringData:\n  pw: \"{{ " + ph + " }}\"\n# {{ end }}\n"; string(got.Templates[0].Data) != want {
		t.Errorf("template = %q, want %q", got.Templates[0].Data, want)
	}
	if got.Templates[1] != plain {
		t.Error("a template holding no value was copied")
	}
	if pw := got.Values["stringData"].(map[string]any)["pw"]; pw != ph {
		t.Errorf("values pw = %v, want %s", pw, ph)
	}
	if l := got.Values["list"].([]any); l[0] != "a" || l[1] != ph {
		t.Errorf("values list = %v", l)
	}
	if got.Values[ph] != "key" || got.Values[v] != nil || got.Values["n"] != 3 {
		t.Errorf("values = %v", got.Values)
	}
	if want := `{"properties":{"pw":{"const":"` + ph + `"}}}`; string(got.Schema) != want {
		t.Errorf("schema = %s, want %s", got.Schema, want)
	}
	if got.Metadata.Description != "pw "+ph || got.Metadata.Name != "c" || got.Metadata.Version != "0.1.0" {
		t.Errorf("metadata = %+v", got.Metadata)
	}
	if ch.Values["stringData"].(map[string]any)["pw"] != v || ch.Metadata.Description != "pw "+v || string(ch.Templates[0].Data) == string(got.Templates[0].Data) {
		t.Error("the loaded chart was changed")
	}
	// Negative: a chart holding none of the values is returned as it is.
	if got, fs := p.ChartFiles(ch, []string{"Unheldval9"}); got != ch || fs.Replaced || fs.Templates {
		t.Errorf("a chart holding no value: %+v, same chart %v", fs, got == ch)
	}
}
