package helm

import (
	"context"
	"fmt"
	"testing"
)

// bench50 is a 50-template chart with helpers, a hook and a crds/ file, shaped like a large
// application chart (HELM.md §3 BenchmarkRender50).
func bench50() map[string]string {
	files := map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: big\nversion: 1.0.0\n",
		"values.yaml": "replicas: 2\nimage: nginx:1.27\n",
		"templates/_helpers.tpl": `{{- define "big.labels" -}}app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}{{- end -}}`,
		"templates/hook.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    helm.sh/hook: pre-install\nspec: {}\n",
		"crds/things.yaml":    crdYAML("things.example.com", "example.com", "Thing"),
	}
	for i := range 49 {
		files[fmt.Sprintf("templates/app%02d.yaml", i)] = fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-app%02d
  labels:
    {{- include "big.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      {{- include "big.labels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "big.labels" . | nindent 8 }}
    spec:
      containers:
      - name: app
        image: {{ .Values.image }}
        env:
        {{- range $k, $v := dict "A" "1" "B" "2" "C" "3" }}
        - name: {{ $k }}
          value: {{ $v | quote }}
        {{- end }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-app%02d
  labels:
    {{- include "big.labels" . | nindent 4 }}
spec:
  ports:
  - port: 80
`, i, i)
	}
	return files
}

// BenchmarkRender: one release of the 50-template chart (99 objects, 1 hook, 1 CRD),
// chart loading included as every render loads its chart.
func BenchmarkRender(b *testing.B) {
	files := bench50()
	hr := hrObj(b, "  targetNamespace: apps\n")
	b.ReportAllocs()
	for b.Loop() {
		res, err := Render(context.Background(), Request{Chart: loadChart(b, files), HelmRelease: hr})
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Docs) != 100 {
			b.Fatalf("%d docs", len(res.Docs))
		}
	}
}
