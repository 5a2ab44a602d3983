package helmrelease

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
)

// templateReads finds the files a chart's templates can read: none without a .Files
// read, the literal names of Get, GetBytes and Lines, the gobwas/glob patterns of Glob
// ('/' separated, "**" for one that does not compile, as helm's files.go), and every file
// for a dynamic name, the top-level object or .Files used whole, tpl, or a template that
// does not parse.
func TestTemplateReads(t *testing.T) {
	probe := []string{"README.md", "LICENSE", "creds.txt", "conf/a.yaml", "conf/sub/b.yaml", "crds/c.yaml"}
	for _, c := range []struct {
		name, tpl string
		reads     []string // of probe; nil: none
	}{
		{"values only", `{{ .Values.x | quote }} {{ .Release.Name }} {{ $.Chart.Name }} {{ .Template.Name }} {{ .Capabilities.KubeVersion }}`, nil},
		{"Files in text and a comment", "Files: {{/* .Files.Get $x */}}{{ .Values.Files }}", nil},
		{"Get literal", `{{ .Files.Get "README.md" }}`, []string{"README.md"}},
		{"$.Files GetBytes and Lines", `{{ $.Files.GetBytes "LICENSE" }}{{ range .Files.Lines "creds.txt" }}{{ . }}{{ end }}`, []string{"LICENSE", "creds.txt"}},
		{"Glob one level", `{{ (.Files.Glob "conf/*.yaml").AsConfig }}`, []string{"conf/a.yaml"}},
		{"Glob any depth", `{{ range $p, $_ := .Files.Glob "conf/**" }}{{ $p }}{{ end }}`, []string{"conf/a.yaml", "conf/sub/b.yaml"}},
		{"Glob that does not compile", `{{ .Files.Glob "[" }}`, probe},
		{"Subcharts' Files", `{{ .Subcharts.sub.Files.Get "crds/c.yaml" }}`, []string{"crds/c.yaml"}},
		{"an alias of the top-level object", `{{ $root := . }}{{ range .Values.l }}{{ $root.Files.Get "LICENSE" }}{{ $root.Values.y }}{{ toYaml . }}{{ end }}`, []string{"LICENSE"}},
		{"with on values", `{{ with .Values.r }}{{ toYaml . }}{{ end }}`, nil},
		{"include the top-level object", `{{ define "x" }}{{ .Chart.Name }}{{ end }}{{ include "x" . }}{{ template "x" $ }}`, nil},
		{"with on the top-level object", `{{ with $ }}{{ .Files.Get "README.md" }}{{ end }}`, []string{"README.md"}},
		// Every file.
		{"computed name", `{{ .Files.Get (printf "%s.txt" "creds") }}`, probe},
		{"variable name", `{{ $n := "creds.txt" }}{{ .Files.Get $n }}`, probe},
		{"piped name", `{{ "creds.txt" | .Files.Get }}`, probe},
		{"Files whole", `{{ .Files.AsConfig }}`, probe},
		{"index on the top-level object", `{{ index . "Files" }}`, probe},
		{"index on $", `{{ (index $ "Files").Get "README.md" }}`, probe},
		{"get on the top-level object", `{{ get . "Files" }}`, probe},
		{"toYaml of the top-level object", `{{ toYaml . }}`, probe},
		{"printed", `{{ . }}`, probe},
		{"an alias printed", `{{ $r := $ }}{{ toJson $r }}`, probe},
		{"range over the top-level object", `{{ range $k, $v := . }}{{ $k }}{{ end }}`, probe},
		{"tpl", `{{ tpl .Values.t . }}`, probe},
		{"Subcharts whole", `{{ toYaml .Subcharts }}`, probe},
		{"a define's dot", `{{ define "y" }}{{ toYaml . }}{{ end }}{{ include "y" .Values }}`, probe},
		{"dict holding the top-level object", `{{ include "z" (dict "ctx" $) }}`, probe},
		{"does not parse", `{{ .Files.Get "README.md" `, probe},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch := &chart.Chart{Metadata: &chart.Metadata{Name: "c"}, Templates: []*common.File{{Name: "templates/t.yaml", Data: []byte(c.tpl)}}}
			r := templateReads(ch)
			var got []string
			for _, p := range probe {
				if r.reads(p) {
					got = append(got, p)
				}
			}
			if !slices.Equal(got, c.reads) || r.none() != (c.reads == nil) {
				t.Errorf("reads %q (none %v); want %q", got, r.none(), c.reads)
			}
		})
	}
}

// A subchart's template reading a file counts for every chart of the render (named
// templates are shared); a chart without templates reads nothing.
func TestTemplateReadsSubchart(t *testing.T) {
	sub := &chart.Chart{Metadata: &chart.Metadata{Name: "sub"}, Templates: []*common.File{{Name: "templates/s.yaml", Data: []byte(`{{ .Files.Get "x.txt" }}`)}}}
	ch := &chart.Chart{Metadata: &chart.Metadata{Name: "c"}}
	if r := templateReads(ch); !r.none() {
		t.Errorf("no template: %+v", r)
	}
	ch.SetDependencies(sub)
	r := templateReads(ch)
	if names := slices.Sorted(maps.Keys(r.names)); r.all || strings.Join(names, ",") != "x.txt" {
		t.Errorf("reads all %v names %q; want x.txt", r.all, names)
	}
}

// A chart's files are rewritten, and FileSecrets.Unmasked said, only where a template can
// read them: a README holding the cluster's Secret value "true" read by no template gives
// nothing; read by its name, or by a name computed at render time, it gives the notice. A
// file no template reads keeps its bytes (the same file), though the values at the
// positions of its Secret stay hidden in a file that is read.
func TestChartFilesReadByTemplates(t *testing.T) {
	p := NewPlaceholders(make([]byte, 32))
	readme := "# c\nSet enabled to true. Token: Tkread9value, local: Lcunread9\n"
	local := "kind: Secret\nstringData: {K: Lcunread9}\n"
	secrets := []string{"true", "Tkread9value"}
	for _, c := range []struct {
		name, tpl string
		fs        FileSecrets // Digest: whether one is set
		readme    string
	}{
		{"no template reads", `{{ .Values.x }}`, FileSecrets{}, readme},
		{"another file read", `{{ .Files.Get "LICENSE" }}`, FileSecrets{}, readme},
		{"read by name", `{{ .Files.Get "README.md" }}`, FileSecrets{Replaced: true, Digest: "y", Unmasked: true},
			"# c\nSet enabled to true. Token: " + p.Text("Tkread9value") + ", local: " + p.Text("Lcunread9") + "\n"},
		{"computed name", `{{ .Files.Get (printf "%s.md" "README") }}`, FileSecrets{Replaced: true, Digest: "y", Unmasked: true},
			"# c\nSet enabled to true. Token: " + p.Text("Tkread9value") + ", local: " + p.Text("Lcunread9") + "\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch := &chart.Chart{Metadata: &chart.Metadata{Name: "c"}, Templates: []*common.File{{Name: "templates/t.yaml", Data: []byte(c.tpl)}},
				Files: []*common.File{{Name: "README.md", Data: []byte(readme)}, {Name: "LICENSE", Data: []byte("free software\n")},
					{Name: "local.yaml", Data: []byte(local)}}}
			got, fs := p.ChartFiles(ch, secrets)
			if fs.Replaced != c.fs.Replaced || fs.Unmasked != c.fs.Unmasked || (fs.Digest != "") != (c.fs.Digest != "") {
				t.Errorf("FileSecrets = %+v; want %+v", fs, c.fs)
			}
			checkFiles(t, got, map[string]string{"README.md": c.readme, "LICENSE": "free software\n"})
			if !c.fs.Replaced && got != ch {
				t.Error("nothing rewritten: not the chart itself")
			}
			if c.name == "read by name" && got.Files[2] != ch.Files[2] {
				t.Error("local.yaml, read by no template, was rewritten")
			}
		})
	}
}

// The chart `helm create` writes (helpers passed the top-level object, toYaml of values in
// with blocks, ranges over values, NOTES.txt) reads none of its files.
func TestTemplateReadsHelmCreate(t *testing.T) {
	dir, err := chartutil.Create("app", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ch, err := loader.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Templates) < 5 {
		t.Fatalf("%d templates", len(ch.Templates))
	}
	if r := templateReads(ch); !r.none() {
		t.Errorf("helm create's chart reads files: %+v", r)
	}
}

// mayHoldSecret lets through every way a document can be a Secret or a List to
// maskObject, and skips a CRD whose descriptions only name Secrets.
func TestMayHoldSecret(t *testing.T) {
	for data, want := range map[string]bool{
		"kind: Secret\n": true, `{"kind":"Secret"}`: true, "kind: 'SecretList'\n": true, "- {kind: List, items: []}\n": true,
		"kind:\n  Secret\n": true, "kind: # c\n  Secret\n": true, "kind: *k\n": true, "kind: !!str Secret\n": true,
		`"k\u0069nd": Secret`: true, "\"kind\" : \"v1List\"": true,
		"kind: CustomResourceDefinition\nspec:\n  names: {kind: Foo, listKind: FooList}\n  description: the Secret holding it\n": false,
		"kind: SecretStore\n": false, "kind: ConfigMap\ndata: {a: Secret}\n": false, "": false,
	} {
		if got := mayHoldSecret("f.yaml", []byte(data)); got != want {
			t.Errorf("mayHoldSecret(%q) = %v; want %v", data, got, want)
		}
	}
	if !mayHoldSecret("k/kustomization.yaml", []byte("secretGenerator: []\n")) || mayHoldSecret("k/other.yaml", []byte("secretGenerator: []\n")) {
		t.Error("a kustomization file's secretGenerator")
	}
}
