package helmrelease

import (
	"encoding/base64"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// A chart's files holding a Secret manifest reach the engine with placeholders for its
// stringData and data values (data stays base64), the other documents of the file as
// written; files without one, a Secret without values and a file that is not YAML are
// left alone, subcharts are rewritten too, and the loaded chart is not changed (hostile6
// r9: a template printed .Files.Get "secret.yaml", a transformation and its base64).
func TestChartFiles(t *testing.T) {
	p := NewPlaceholders(make([]byte, 32))
	secret := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  TOK: Tkhdlongv4l\ndata:\n  B: " +
		base64.StdEncoding.EncodeToString([]byte("bsecret9")) + "\n"
	sops := "kind: Secret\nstringData:\n  K: ENC[AES256_GCM,data:abc]\nsops:\n  age:\n  - recipient: age1xyz\n  mac: ENC[mac]\n"
	mixed := "# a comment\nkind: ConfigMap\ndata: {a: Secret}\n---\nkind: Secret\nstringData: {K: kval9zz}\n"
	files := []*common.File{
		{Name: "secret.yaml", Data: []byte(secret)},
		{Name: "mixed.yaml", Data: []byte(mixed)},
		{Name: "README.md", Data: []byte("a Secret is not shown\n")},
		{Name: "empty.yaml", Data: []byte("kind: Secret\nmetadata: {name: e}\n")},
		{Name: "sops.yaml", Data: []byte(sops)},
		{Name: "bad.yaml", Data: []byte("kind: Secret\nstringData: [\n")},
	}
	sub := &chart.Chart{Metadata: &chart.Metadata{Name: "sub"}, Files: []*common.File{{Name: "s.yaml", Data: []byte("kind: Secret\nstringData: {S: subval9}\n")}}}
	ch := &chart.Chart{Metadata: &chart.Metadata{Name: "c"}, Files: files, Templates: []*common.File{readAll}}
	ch.SetDependencies(sub)

	got, fs := p.ChartFiles(ch, nil)
	ok := fs.Replaced
	if !ok {
		t.Fatal("no file rewritten")
	}
	want := map[string]string{
		"secret.yaml": "apiVersion: v1\ndata:\n  B: " + base64.StdEncoding.EncodeToString([]byte(p.Text("bsecret9"))) +
			"\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  TOK: " + p.Text("Tkhdlongv4l") + "\n",
		"mixed.yaml": "# a comment\nkind: ConfigMap\ndata: {a: Secret}\n---\nkind: Secret\nstringData:\n  K: " + p.Text("kval9zz") + "\n",
		"README.md":  "a Secret is not shown\n",
		"empty.yaml": "kind: Secret\nmetadata: {name: e}\n",
		"bad.yaml":   "kind: Secret\nstringData: [\n",
		"sops.yaml": "kind: Secret\nsops:\n  age:\n  - " + p.Text("recipient") + ": " + p.Text("age1xyz") +
			"\n  mac: " + p.Text("ENC[mac]") + "\nstringData:\n  K: " + p.Text("ENC[AES256_GCM,data:abc]") + "\n",
	}
	for _, f := range got.Files {
		if string(f.Data) != want[f.Name] {
			t.Errorf("%s:\n%s\nwant:\n%s", f.Name, f.Data, want[f.Name])
		}
	}
	if d := got.Dependencies(); len(d) != 1 || string(d[0].Files[0].Data) != "kind: Secret\nstringData:\n  S: "+p.Text("subval9")+"\n" {
		t.Errorf("subchart: %q", d[0].Files[0].Data)
	}
	if string(ch.Files[0].Data) != secret || string(sub.Files[0].Data) != "kind: Secret\nstringData: {S: subval9}\n" || sub.Parent() != ch {
		t.Error("the loaded chart changed")
	}
	plain := &chart.Chart{Metadata: &chart.Metadata{Name: "p"}, Files: files[2:4], Templates: []*common.File{readAll}}
	if same, fs := p.ChartFiles(plain, nil); fs.Replaced || same != plain {
		t.Errorf("no Secret values: %v, %v; want the chart itself, false", same, fs)
	}
}
