package sandbox

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	"sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/helm"
)

// TestMain makes the test binary a worker when its first argument is helm-worker, as the
// bot binary is; the workers' environment is empty, so the switch cannot be a variable.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "helm-worker" {
		if err := Serve(os.Stdin, os.Stdout, testRender); err != nil {
			fmt.Fprintln(os.Stderr, "helm-worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// workerCommand re-executes the test binary as a worker.
func workerCommand(t testing.TB) []string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, "helm-worker"}
}

// testRender is the workers' renderer: charts named helm-* go to helm.Render, a few names
// misbehave on purpose, the rest render with Helm's engine (so runaway templates run as
// they would in helm.Render).
func testRender(ctx context.Context, req helm.Request) (*helm.Result, error) {
	switch name := req.Chart.Metadata.Name; {
	case name == "exit":
		fmt.Fprintln(os.Stderr, "fatal error: test crash")
		os.Exit(7)
	case name == "panic":
		panic("boom")
	case name == "env":
		return envResult()
	case strings.HasPrefix(name, "helm-"):
		return helm.Render(ctx, req)
	}
	return engineRender(ctx, req)
}

// envResult reports what the worker process sees of its environment and directory.
func envResult() (*helm.Result, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(wd)
	if err != nil {
		return nil, err
	}
	names := []any{}
	for _, e := range entries {
		names = append(names, e.Name())
	}
	obj := map[string]any{"env": os.Environ(), "dir": wd, "entries": names}
	return &helm.Result{Docs: []helm.Doc{{Object: obj}}}, nil
}

// engineRender renders every template with Helm's engine and splits the output into
// objects, sorted by template; NOTES.txt is left out, as Helm does.
func engineRender(_ context.Context, req helm.Request) (*helm.Result, error) {
	opts := common.ReleaseOptions{Name: "test", Namespace: "default", IsInstall: true}
	vals, err := util.ToRenderValues(req.Chart, req.Values, opts, common.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	out, err := engine.Render(req.Chart, vals)
	if err != nil {
		return nil, err
	}
	res := &helm.Result{Approximate: []string{}}
	for _, name := range slices.Sorted(maps.Keys(out)) {
		if !strings.HasSuffix(name, ".yaml") {
			continue // NOTES.txt
		}
		for doc := range strings.SplitSeq(out[name], "\n---") {
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if obj != nil {
				res.Docs = append(res.Docs, helm.Doc{Object: obj, Template: name})
			}
		}
	}
	return res, nil
}

// loadChart builds a chart from name → content, the paths relative to the chart folder.
func loadChart(t testing.TB, files map[string]string) *chart.Chart {
	t.Helper()
	var bf []*archive.BufferedFile
	for _, name := range slices.Sorted(maps.Keys(files)) {
		bf = append(bf, &archive.BufferedFile{Name: name, Data: []byte(files[name])})
	}
	c, err := loader.LoadFiles(bf)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func chartYAML(name string) string {
	return "apiVersion: v2\nname: " + name + "\nversion: 1.0.0\n"
}
