package helmrelease

import (
	"fmt"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// bigChart is a chart of 300 files, about 5 MiB: 20 CRDs of 200 KiB in crds/ (their
// descriptions name Secrets, as real CRDs do), 279 small config files and one template,
// tpl (its text, "" for none).
func bigChart(tpl string) *chart.Chart {
	ch := &chart.Chart{Metadata: &chart.Metadata{Name: "big"}}
	desc := "        description: the name of the Secret holding the credentials, true when enabled\n"
	for i := 0; i < 20; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: k%d.example.com\nspec:\n", i)
		for b.Len() < 200<<10 {
			b.WriteString(desc)
		}
		ch.Files = append(ch.Files, &common.File{Name: fmt.Sprintf("crds/k%d.yaml", i), Data: []byte(b.String())})
	}
	for i := 0; len(ch.Files) < 299; i++ {
		data := strings.Repeat(fmt.Sprintf("key%d: value %d, enabled: true\n", i, i), 3400/30)
		ch.Files = append(ch.Files, &common.File{Name: fmt.Sprintf("config/f%d.yaml", i), Data: []byte(data)})
	}
	if tpl != "" {
		ch.Templates = append(ch.Templates, &common.File{Name: "templates/cm.yaml", Data: []byte(tpl)})
	}
	ch.Files = append(ch.Files, &common.File{Name: "README.md", Data: []byte("# big\nSet enabled to true.\n")})
	return ch
}

// benchSecrets are 200 cluster Secret values, none in bigChart's files, a short word among them.
func benchSecrets() []string {
	out := []string{"true"}
	for i := 0; len(out) < 200; i++ {
		out = append(out, fmt.Sprintf("S3cr%03dValue-%x", i, i*7919))
	}
	return out
}

func benchChartFiles(b *testing.B, tpl string) {
	p := NewPlaceholders(make([]byte, 32))
	ch, secrets := bigChart(tpl), benchSecrets()
	size := 0
	for _, f := range ch.Files {
		size += len(f.Data)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		p.ChartFiles(ch, secrets)
	}
}

// BenchmarkChartFilesRead: a template reads every file (.Files.Glob "**").
func BenchmarkChartFilesRead(b *testing.B) {
	benchChartFiles(b, `data: {{ (.Files.Glob "**").AsConfig | nindent 2 }}`+"\n")
}

// BenchmarkChartFilesOne: a template reads one file by its literal name.
func BenchmarkChartFilesOne(b *testing.B) {
	benchChartFiles(b, `data: {{ .Files.Get "README.md" | quote }}`+"\n")
}

// BenchmarkChartFilesNone: no template reads a file.
func BenchmarkChartFilesNone(b *testing.B) {
	benchChartFiles(b, `data: {{ .Values.x | quote }}`+"\n")
}
