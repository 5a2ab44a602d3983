package helm

import (
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// loadChart builds a chart in memory from chart-relative files (loader.LoadFiles, as
// in-repo charts are built from the git snapshot).
func loadChart(t testing.TB, files map[string]string) *chart.Chart {
	t.Helper()
	var bf []*archive.BufferedFile
	for _, name := range slices.Sorted(mapsKeys(files)) {
		bf = append(bf, &archive.BufferedFile{Name: name, Data: []byte(files[name])})
	}
	c, err := loader.LoadFiles(bf)
	if err != nil {
		t.Fatalf("load chart: %v", err)
	}
	return c
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// appChart is a chart shaped like real ones: helpers, a Deployment, a Service, a hook, NOTES,
// a CRD (with a stray ConfigMap) in crds/, and a subchart with its own CRD behind a
// condition.
func appChart() map[string]string {
	return map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: app\nversion: 1.2.3\ndependencies:\n- name: sub\n  version: 0.1.0\n  condition: sub.enabled\n",
		"values.yaml": "replicas: 1\nimage: nginx:1.0\nsub:\n  enabled: true\n",
		"templates/_helpers.tpl": `{{- define "app.fullname" -}}{{ .Release.Name }}-app{{- end -}}
{{- define "app.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version | replace "+" "_" }}
{{- end -}}`,
		"templates/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "app.fullname" . }}
  labels:
    {{- include "app.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicas }}
  template:
    spec:
      containers:
      - name: app
        image: {{ .Values.image }}
`,
		"templates/svc.yaml": `apiVersion: v1
kind: Service
metadata:
  name: {{ include "app.fullname" . }}
  namespace: {{ .Release.Namespace }}
spec:
  ports:
  - port: 80
`,
		"templates/hook.yaml": `apiVersion: batch/v1
kind: Job
metadata:
  name: {{ include "app.fullname" . }}-migrate
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
spec:
  template:
    spec:
      containers:
      - name: migrate
        image: {{ .Values.image }}
`,
		"templates/NOTES.txt":          "Installed {{ .Release.Name }}.\n",
		"crds/widgets.yaml":            crdYAML("widgets.example.com", "example.com", "Widget") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stray\n",
		"charts/sub/Chart.yaml":        "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
		"charts/sub/values.yaml":       "greeting: hello\n",
		"charts/sub/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-sub\ndata:\n  greeting: {{ .Values.greeting }}\n",
		"charts/sub/crds/gadgets.yaml": crdYAML("gadgets.example.com", "example.com", "Gadget"),
	}
}

func crdYAML(name, group, kind string) string {
	return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: " + name +
		"\nspec:\n  group: " + group + "\n  names:\n    kind: " + kind + "\n    plural: " + strings.ToLower(kind) + "s\n  scope: Namespaced\n"
}

// obj parses one expected object written in YAML, with Kubernetes number types.
func obj(t testing.TB, doc string) map[string]any {
	t.Helper()
	objs, err := decodeDocs(doc)
	if err != nil || len(objs) != 1 {
		t.Fatalf("expected object: %v (%d objects)", err, len(objs))
	}
	return objs[0]
}

func hrObj(t testing.TB, spec string) *unstructured.Unstructured {
	t.Helper()
	m := map[string]any{}
	doc := "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: web\n  namespace: flux-system\nspec:\n" + spec
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("HelmRelease: %v", err)
	}
	return &unstructured.Unstructured{Object: m}
}
