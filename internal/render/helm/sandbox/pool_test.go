package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/helm"
)

// appChart has helpers, chart values, a subchart and values of every decoded type.
func appChart(t testing.TB, name string) *chart.Chart {
	return loadChart(t, map[string]string{
		"Chart.yaml":  chartYAML(name),
		"values.yaml": "replicas: 1\nimage: {repository: app, tag: \"1.0\"}\nsub: {greeting: hi}\n",
		"templates/_helpers.tpl": `{{- define "app.labels" }}app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}{{ end }}`,
		"templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cfg
  labels:
    {{- include "app.labels" . | nindent 4 }}
data:
  replicas: {{ .Values.replicas | quote }}
  big: {{ .Values.big | quote }}
  ratio: {{ .Values.ratio | quote }}
  empty: {{ .Values.empty | toJson | quote }}
  none: {{ .Values.none | toJson | quote }}
  image: {{ printf "%s:%s" .Values.image.repository .Values.image.tag }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
spec:
  ports:
  - port: 80
`,
		"charts/sub/Chart.yaml":          chartYAML("sub"),
		"charts/sub/values.yaml":         "greeting: hello\n",
		"charts/sub/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\ndata:\n  greeting: {{ .Values.greeting }}\n",
		"charts/sub/templates/NOTES.txt": "notes\n",
	})
}

func appRequest(t testing.TB, name string) helm.Request {
	hr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": "app", "namespace": "apps"},
		"spec":     map[string]any{"interval": "10m", "values": map[string]any{"replicas": int64(3)}},
	}}
	return helm.Request{
		Chart:       appChart(t, name),
		HelmRelease: hr,
		Values: map[string]any{
			"replicas": int64(3), "big": int64(1000000), "ratio": 0.5,
			"empty": []any{}, "none": nil, "image": map[string]any{"tag": "2.0"},
		},
		KubeVersion: "v1.33.0",
		APIVersions: []string{"monitoring.coreos.com/v1/ServiceMonitor"},
	}
}

func newTestPool(t *testing.T, opts Options) *Pool {
	t.Helper()
	opts.Command = workerCommand(t)
	p := NewPool(opts)
	t.Cleanup(func() { p.Close() })
	return p
}

func TestPoolMatchesInProcess(t *testing.T) {
	p := newTestPool(t, Options{Size: 1})
	req := appRequest(t, "app")
	want, err := engineRender(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	wantData := map[string]any{
		"replicas": "3", "big": "1000000", "ratio": "0.5", "empty": "[]", "none": "null", "image": "app:2.0",
	}
	if diff := cmp.Diff(wantData, want.Docs[1].Object["data"]); diff != "" { // after sub's
		t.Fatalf("in-process render (-want +got):\n%s", diff)
	}
	got, err := p.Render(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pool render differs from in-process (-in-process +pool):\n%s", diff)
	}
	if len(got.Docs) != 3 {
		t.Errorf("docs = %d, want 3 (two from app, one from sub)", len(got.Docs))
	}

	// helm.Render itself, result or error, crosses the boundary unchanged.
	hreq := appRequest(t, "helm-app")
	wantH, wantErr := helm.Render(context.Background(), hreq)
	if wantErr != nil || len(wantH.Docs) != 3 {
		t.Fatalf("helm.Render in-process: %v, want 3 docs", wantErr)
	}
	gotH, gotErr := p.Render(context.Background(), hreq)
	if diff := cmp.Diff(errText(wantErr), errText(gotErr)); diff != "" {
		t.Errorf("helm.Render error (-in-process +pool):\n%s", diff)
	}
	if diff := cmp.Diff(wantH, gotH); diff != "" {
		t.Errorf("helm.Render result (-in-process +pool):\n%s", diff)
	}
	if n := p.Started(); n != 1 {
		t.Errorf("workers started = %d, want 1 (reused)", n)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestPoolChartErrorIsData(t *testing.T) {
	p := newTestPool(t, Options{Size: 1})
	req := helm.Request{Chart: loadChart(t, map[string]string{
		"Chart.yaml":         chartYAML("broken"),
		"templates/cm.yaml":  `{{ fail "replicas must be set" }}`,
		"templates/ok.yaml":  "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ok\n",
		"templates/bad.yaml": "{{ .Values.missing.key }}",
	})}
	_, want := engineRender(context.Background(), req)
	_, got := p.Render(context.Background(), req)
	if want == nil || got == nil || got.Error() != want.Error() {
		t.Fatalf("pool error %q, want the in-process error %q", errText(got), errText(want))
	}
	var le *LimitError
	if errors.As(got, &le) {
		t.Errorf("a chart's own failure is not a LimitError: %v", got)
	}
}

// bombChart doubles a 16-byte string through nested includes (HELM.md §6): 2^levels × 16
// bytes, seconds per MiB.
func bombChart(t testing.TB, name string, levels int) *chart.Chart {
	var b strings.Builder
	b.WriteString(`{{- define "l0" }}0123456789abcdef{{ end }}` + "\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, `{{- define "l%d" }}{{ include "l%d" . }}{{ include "l%d" . }}{{ end }}`+"\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n  x: {{ include \"l%d\" . | quote }}\n", levels)
	return loadChart(t, map[string]string{"Chart.yaml": chartYAML(name), "templates/bomb.yaml": b.String()})
}

// hogTemplate doubles a string 40 times (16 TiB): memory, fast.
func hogTemplate(t testing.TB, name string) *chart.Chart {
	return loadChart(t, map[string]string{
		"Chart.yaml": chartYAML(name),
		"templates/hog.yaml": `{{- $s := "0123456789abcdef" }}{{ range until 40 }}{{ $s = print $s $s }}{{ end -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: hog
data:
  n: {{ len $s | quote }}
`,
	})
}

func TestPoolBounds(t *testing.T) {
	hog := hogTemplate(t, "hog")
	flood := loadChart(t, map[string]string{
		"Chart.yaml": chartYAML("flood"),
		"templates/flood.yaml": `{{- range until 5000 }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-{{ . }}
data:
  x: {{ repeat 400 "x" }}
{{- end }}
`,
	})
	// helm-* charts render with helm.Render itself, its template function caps included.
	helmHog := hogTemplate(t, "helm-hog")
	cases := []struct {
		name  string
		opts  Options
		chart *chart.Chart
		limit Limit
		want  string
	}{
		{"time", Options{Timeout: 2 * time.Second}, bombChart(t, "bomb", 30), LimitTime, "chart bomb: render exceeded 2s, stopped"},
		{"time helm.Render", Options{Timeout: 2 * time.Second}, bombChart(t, "helm-bomb", 30), LimitTime, "chart helm-bomb: render exceeded 2s, stopped"},
		{"memory", Options{MemoryBytes: 128 << 20}, hog, LimitMemory, "chart hog: render exceeded memory limit 128 MiB"},
		{"memory helm.Render", Options{MemoryBytes: 128 << 20}, helmHog, LimitMemory, "chart helm-hog: render exceeded memory limit 128 MiB"},
		{"output", Options{MaxOutputBytes: 1 << 20}, flood, LimitOutput, "chart flood: render output exceeded 1048576 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Size = 1
			p := newTestPool(t, tc.opts)
			req := appRequest(t, "unused")
			req.Chart = tc.chart
			_, err := p.Render(context.Background(), req)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
			var le *LimitError
			if !errors.As(err, &le) || le.Limit != tc.limit {
				t.Errorf("error %#v is not a LimitError for %s", err, tc.limit)
			}
			// The killed worker is replaced and the pool serves the next request.
			res, err := p.Render(context.Background(), appRequest(t, "app"))
			if err != nil {
				t.Fatalf("render after the %s limit: %v", tc.name, err)
			}
			if len(res.Docs) != 3 {
				t.Errorf("docs after the %s limit = %d, want 3", tc.name, len(res.Docs))
			}
			if n := p.Started(); n != 2 {
				t.Errorf("workers started = %d, want 2 (one killed, one new)", n)
			}
		})
	}
}

func TestPoolWorkerFailures(t *testing.T) {
	p := newTestPool(t, Options{Size: 1})
	one := func(name string) error {
		_, err := p.Render(context.Background(), helm.Request{Chart: loadChart(t, map[string]string{"Chart.yaml": chartYAML(name)})})
		return err
	}
	if err := one("panic"); errText(err) != "chart panic: render panicked: boom" {
		t.Errorf("panic: error = %v", err)
	}
	if n := p.Started(); n != 1 {
		t.Errorf("a recovered panic keeps its worker: started = %d, want 1", n)
	}
	if err := one("exit"); errText(err) != "chart exit: helm worker failed (exit status 7: fatal error: test crash)" {
		t.Errorf("exit: error = %v", err)
	}
	if err := one("app"); err != nil {
		t.Errorf("render after a crash: %v", err)
	}
	if n := p.Started(); n != 2 {
		t.Errorf("workers started = %d, want 2", n)
	}
}

func TestWorkerEnvironment(t *testing.T) {
	p := newTestPool(t, Options{Size: 1, MemoryBytes: 100 << 20})
	res, err := p.Render(context.Background(), helm.Request{Chart: loadChart(t, map[string]string{"Chart.yaml": chartYAML("env")})})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Docs[0].Object
	want := map[string]any{"env": []string{"GOMEMLIMIT=104857600"}, "entries": []any{}, "dir": got["dir"]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("worker environment (-want +got):\n%s", diff)
	}
	dir, _ := got["dir"].(string)
	if !strings.HasPrefix(filepath.Base(dir), "tiergate-helm-worker-") {
		t.Errorf("worker dir = %q, want a fresh tiergate-helm-worker-* temp dir", dir)
	}
	p.Close()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("worker dir %s after Close: %v, want it removed", dir, err)
	}
}

// busy starts a long render and returns its error channel once a worker runs it.
func busy(t *testing.T, ctx context.Context, p *Pool) <-chan error {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		_, err := p.Render(ctx, helm.Request{Chart: bombChart(t, "bomb", 30)})
		errc <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for p.Started() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no worker started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return errc
}

func TestPoolClose(t *testing.T) {
	p := newTestPool(t, Options{Size: 2, Timeout: time.Minute})
	if _, err := p.Render(context.Background(), appRequest(t, "app")); err != nil {
		t.Fatal(err)
	}
	errc := busy(t, context.Background(), p) // the idle worker takes it, or a second one
	p.mu.Lock()
	workers := make([]*worker, 0, len(p.live))
	for w := range p.live {
		workers = append(workers, w)
	}
	p.mu.Unlock()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Errorf("render under way at Close: error = %v, want ErrClosed", err)
	}
	for _, w := range workers {
		select {
		case <-w.done:
		default:
			t.Errorf("worker %d still running after Close", w.cmd.Process.Pid)
		}
	}
	if _, err := p.Render(context.Background(), appRequest(t, "app")); !errors.Is(err, ErrClosed) {
		t.Errorf("render after Close: error = %v, want ErrClosed", err)
	}
}

func TestPoolContextCancel(t *testing.T) {
	p := newTestPool(t, Options{Size: 1, Timeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	errc := busy(t, ctx, p)
	cancel()
	err := <-errc
	if !errors.Is(err, context.Canceled) || err.Error() != "chart bomb: render stopped: context canceled" {
		t.Errorf("error = %v, want the chart's render stopped by context canceled", err)
	}
	if _, err := p.Render(context.Background(), appRequest(t, "app")); err != nil {
		t.Errorf("render after cancel: %v", err)
	}
	if n := p.Started(); n != 2 {
		t.Errorf("workers started = %d, want 2", n)
	}
}
