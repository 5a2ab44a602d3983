package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/leaktest"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review"
)

// demoWith copies the demo scenario's head to a new folder and adds files to it.
func demoWith(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(demo+"head")); err != nil {
		t.Fatal(err)
	}
	for rel, content := range files {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const secretYAML = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: web\ntype: Opaque\n" +
	"data:\n  password: aHVudGVyMg==\nstringData:\n  user: admin\n"

func TestBuildYAML(t *testing.T) {
	dir := demoWith(t, map[string]string{"infra/secret.yaml": secretYAML})
	out, errOut, code, err := runErr(t, "build", "--dir", dir, "--kustomization", "flux-system/infra")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, %v, stderr %q", code, err, errOut)
	}
	const want = `---
# cluster demo, Kustomization flux-system/infra, infra/namespaces.yaml:2
apiVersion: v1
kind: Namespace
metadata:
  name: web
---
# cluster demo, Kustomization flux-system/infra, infra/namespaces.yaml:7
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
provisioner: driver.longhorn.io
---
# cluster demo, Kustomization flux-system/infra, infra/secret.yaml:2
apiVersion: v1
data:
  password: <redacted>
kind: Secret
metadata:
  name: db
  namespace: web
stringData:
  user: <redacted>
type: Opaque
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
}

func TestBuildJSON(t *testing.T) {
	repo := commitScenario(t, demo)
	out, _, code, err := runErr(t, "build", "--repo", repo, "--rev", "HEAD", "--cluster", "demo", "--kustomization", "flux-system/databases", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	var got []builtObject
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := []builtObject{{Cluster: "demo", Kustomization: "flux-system/databases", File: "databases/web-data.yaml", Line: 2,
		Object: map[string]any{
			"apiVersion": "v1", "kind": "PersistentVolumeClaim",
			"metadata": map[string]any{"name": "web-data", "namespace": "web"},
			"spec": map[string]any{"storageClassName": "fast", "accessModes": []any{"ReadWriteOnce"},
				"resources": map[string]any{"requests": map[string]any{"storage": "10Gi"}}},
		}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	// The base commit has no Kustomization databases.
	_, _, code, err = runErr(t, "build", "--repo", repo, "--rev", "HEAD~1", "--kustomization", "flux-system/databases")
	if code != 2 || err == nil || err.Error() != "no Kustomization flux-system/databases in the rendered clusters" {
		t.Errorf("HEAD~1: exit %d, error %v", code, err)
	}
}

// TestBuildErrors: a Kustomization that fails to build prints nothing and exits 2 with
// its error, as do bad flags.
func TestBuildErrors(t *testing.T) {
	bad := demoWith(t, map[string]string{"infra/bad.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n"})
	for _, tc := range []struct {
		args []string
		want string
	}{
		// One sentence at the cause (render summarize); kustomize's chain is BuildError.Details.
		{[]string{"build", "--dir", bad}, "Kustomization flux-system/infra (cluster demo): infra/bad.yaml:4: infra/bad.yaml:4 is not valid YAML: did not find expected ',' or ']'"},
		{[]string{"build", "--dir", bad, "--kustomization", "infra"}, `--kustomization: want NAMESPACE/NAME, got "infra"`},
		{[]string{"build", "--dir", bad, "--format", "table"}, `--format: want yaml or json, got "table"`},
		{[]string{"build", "--dir", bad, "--rev", "main"}, "--rev and --repo do not apply to --dir"},
		{[]string{"build", "--dir", bad, "--cluster", "prod"}, `cluster "prod" not found (clusters: demo)`},
	} {
		out, _, code, err := runErr(t, tc.args...)
		if code != 2 || out != "" || err == nil || err.Error() != tc.want {
			t.Errorf("%q: exit %d, stdout %q, error %v; want exit 2, %q", tc.args, code, out, err, tc.want)
		}
	}
	// The other Kustomizations still build on their own.
	if _, _, code, err := runErr(t, "build", "--dir", bad, "--kustomization", "flux-system/apps"); code != 0 {
		t.Errorf("apps: exit %d, %v", code, err)
	}
}

// TestBuildChartObjectHeaders: a chart's objects share their HelmRelease's file:line, so
// each header names the HelmRelease once and the template; a plain object has file:line.
func TestBuildChartObjectHeaders(t *testing.T) {
	out, errOut, code, err := runErr(t, "build", "--dir", "../../testdata/scenarios/helm-in-repo/head", "--kustomization", "flux-system/apps")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, %v, stderr %q", code, err, errOut)
	}
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "# ") {
			got = append(got, l)
		}
	}
	const hr = "# cluster dev, Kustomization flux-system/apps, HelmRelease default/podinfo (apps/podinfo.yaml:2), template "
	want := []string{
		"# cluster dev, Kustomization flux-system/apps, apps/podinfo.yaml:2",
		hr + "podinfo/crds/widgets.yaml",
		hr + "podinfo/charts/common/templates/configmap.yaml",
		hr + "podinfo/templates/service.yaml",
		hr + "podinfo/templates/deployment.yaml",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
	out, _, code, err = runErr(t, "build", "--dir", "../../testdata/scenarios/helm-in-repo/head", "--kustomization", "flux-system/apps", "--format", "json")
	if code != 0 {
		t.Fatalf("json: exit %d, %v", code, err)
	}
	var objs []builtObject
	if err := json.Unmarshal([]byte(out), &objs); err != nil {
		t.Fatal(err)
	}
	var where []string
	for _, o := range objs {
		where = append(where, o.HelmRelease+"|"+o.Template)
	}
	wantWhere := []string{"|", "default/podinfo|podinfo/crds/widgets.yaml", "default/podinfo|podinfo/charts/common/templates/configmap.yaml",
		"default/podinfo|podinfo/templates/service.yaml", "default/podinfo|podinfo/templates/deployment.yaml"}
	if diff := cmp.Diff(wantWhere, where); diff != "" {
		t.Errorf("json helmRelease|template (-want +got):\n%s", diff)
	}
}

// TestBuildErrorsRedactSecrets: the errors `build` returns (printed on standard error) and
// the graph's build errors pass through the same redaction as their standard output. The
// fixture's Kustomizations take a name and path (zq8wlk3vpx), an interval (Hs8dKw2mQz) and a
// 3-byte sourceRef name part (kx7) from a substituteFrom Secret. Before, build printed all
// three on standard error (hostile cases min-build, quote, short, subst).
func TestBuildErrorsRedactSecrets(t *testing.T) {
	dir := "testdata/secret-errors"
	want := `Kustomization flux-system/bad (cluster x): bad/ks.yaml:7: the API server rejects Kustomization flux-system/child: spec.interval: "<redacted>" is not a duration such as 30s, 5m or 1h30m (the schema's pattern ^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$) (bad/ks.yaml:7)
Kustomization flux-system/ks-bad (cluster x): not built: sourceRef GitRepository/flux-system/src-<redacted> is not the cluster's source and has no folder in .tiergate.yaml sources
Kustomization flux-system/ks-<redacted> (cluster x): apps/ks.yaml:8: kustomization path not found: ./nowhere/<redacted>`
	for _, format := range []string{"yaml", "json"} {
		out, stderr, code, err := runErr(t, "build", "--dir", dir, "--no-cache", "--format", format)
		if code != 2 || out != "" || stderr != "" || err == nil || err.Error() != want {
			t.Errorf("build %s: exit %d, stdout %q, stderr %q, error %v; want exit 2 and\n%s", format, code, out, stderr, err, want)
		}
	}
	// The one Kustomization asked for: its error alone, redacted too.
	_, _, code, err := runErr(t, "build", "--dir", dir, "--no-cache", "--kustomization", "flux-system/ks-bad")
	if want := "Kustomization flux-system/ks-bad (cluster x): not built: sourceRef GitRepository/flux-system/src-<redacted> is not the cluster's source and has no folder in .tiergate.yaml sources"; code != 2 || err == nil || err.Error() != want {
		t.Errorf("build --kustomization flux-system/ks-bad: exit %d, error %v; want %q", code, err, want)
	}
	text, stderr, code, err := runErr(t, "graph", "--dir", dir, "--no-cache")
	wantText := `cluster x (root clusters/x, 6 Kustomizations, 9 objects)
  flux-system/flux-system  path=./clusters/x prune=true dependsOn=[]  5 objects
  flux-system/apps  path=./apps prune=true dependsOn=[flux-system/config]  2 objects
  flux-system/bad  path=./bad prune=true dependsOn=[flux-system/config]  build error: bad/ks.yaml:7: the API server rejects Kustomization flux-system/child: spec.interval: "<redacted>" is not a duration such as 30s, 5m or 1h30m (the schema's pattern ^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$) (bad/ks.yaml:7)
  flux-system/config  path=./config prune=true dependsOn=[]  1 object
  flux-system/ks-bad  path=./apps prune=true dependsOn=[]  not built: sourceRef GitRepository/flux-system/src-<redacted> is not the cluster's source and has no folder in .tiergate.yaml sources
  flux-system/ks-<redacted>  path=./nowhere/<redacted> prune=true dependsOn=[]  build error: apps/ks.yaml:8: kustomization path not found: ./nowhere/<redacted>
`
	if code != 0 || err != nil || stderr != "" || text != wantText {
		t.Errorf("graph: exit %d, error %v, stderr %q, stdout\n%s\nwant\n%s", code, err, stderr, text, wantText)
	}
	// Nothing on any output (standard output, standard error, the returned error) names
	// the values: review as Markdown, JSON and SARIF, graph and build in every format.
	values := leaktest.Values(t, dir)
	var runs [][]string
	for _, f := range []string{"markdown", "json", "sarif"} {
		runs = append(runs, []string{"review", "--base-dir", dir, "--head-dir", dir, "--format", f, "--no-cache"})
	}
	for _, f := range []string{"text", "json", "mermaid"} {
		runs = append(runs, []string{"graph", "--dir", dir, "--format", f, "--no-cache"})
	}
	for _, f := range []string{"yaml", "json"} {
		runs = append(runs, []string{"build", "--dir", dir, "--format", f, "--no-cache"})
	}
	for _, args := range runs {
		out := runAll(t, args...)
		for _, v := range values {
			if strings.Contains(out, v) {
				t.Errorf("%q shows %q", args, v)
			}
		}
	}
}

// TestRenderOneRedactsOnce: `build` and `graph` make their graph's redaction once per run,
// however many texts they print (standard output, the held warnings, the returned error);
// before, each text built it again (walking every object). A run whose render does not
// happen (an unreadable folder) makes none.
func TestRenderOneRedactsOnce(t *testing.T) {
	made := 0
	defer func(orig func(*graph.Graph) func(string) string) { graphRedactor = orig }(graphRedactor)
	graphRedactor = func(g *graph.Graph) func(string) string { made++; return review.GraphTextRedactor(g) }
	dir := "testdata/secret-errors"
	for _, tc := range []struct {
		args     []string
		code     int
		redacted bool // the output or error shows <redacted>
		want     int
	}{
		{[]string{"build", "--dir", dir, "--no-cache"}, 2, true, 1},
		{[]string{"build", "--dir", dir, "--no-cache", "--kustomization", "flux-system/config"}, 0, true, 1},
		{[]string{"graph", "--dir", dir, "--no-cache"}, 0, true, 1},
		{[]string{"graph", "--dir", dir, "--no-cache", "--format", "json"}, 0, false, 1},
		{[]string{"graph", "--dir", filepath.Join(t.TempDir(), "missing"), "--no-cache"}, 2, false, 0},
	} {
		made = 0
		out, stderr, code, err := runErr(t, tc.args...)
		shown := out + stderr
		if err != nil {
			shown += err.Error()
		}
		if code != tc.code || made != tc.want || strings.Contains(shown, "<redacted>") != tc.redacted {
			t.Errorf("%q: exit %d, redactions made %d, shows <redacted> %v; want exit %d, %d, %v",
				tc.args, code, made, strings.Contains(shown, "<redacted>"), tc.code, tc.want, tc.redacted)
		}
	}
}
