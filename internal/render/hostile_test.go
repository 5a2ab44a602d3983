package render

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
)

var appsRef = graph.Ref{Namespace: "flux-system", Name: "apps"}

// hostile is a tree holding cluster dev whose Kustomization apps builds ./apps, plus files.
func hostile(t *testing.T, files map[string]string) string {
	t.Helper()
	return tree(t, merge(bootstrap("dev"), map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps")}, files))
}

// fifoCanary makes dir/canary.yaml a named pipe with no writer: opening it for reading
// blocks, so a Render that returns has provably not opened it.
func fifoCanary(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "canary.yaml")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Release a reader stuck on the pipe, if the test failed that way.
		if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return p
}

// renderWithin renders dir, failing the test when Render has not returned within a
// minute: it is blocked opening a canary pipe, i.e. it read outside the checkout.
func renderWithin(t *testing.T, dir string, opts Options) *graph.Graph {
	t.Helper()
	type res struct {
		g   *graph.Graph
		err error
	}
	done := make(chan res, 1)
	go func() {
		g, err := Render(context.Background(), dir, opts)
		done <- res{g, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.g
	case <-time.After(time.Minute):
		t.Fatal("Render is blocked opening the canary pipe: it read outside the checkout")
		return nil
	}
}

func TestReadsOutsideTheCheckoutAreRefused(t *testing.T) {
	outer := t.TempDir()
	canary := fifoCanary(t, outer)
	if err := os.WriteFile(filepath.Join(outer, "kustomization.yaml"), []byte("resources: [canary.yaml]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const outside = "it resolves outside the source root, which kustomize-controller's secure filesystem refuses"
	cases := []struct {
		name, kustomization string
		links               map[string]string // link (repo-relative) → target
		want                graph.BuildError
	}{
		{"resource up and out", "resources:\n  - cm.yaml\n  - ../../canary.yaml\n", nil,
			graph.BuildError{Message: `refused "../../canary.yaml": ` + outside, File: "apps/kustomization.yaml", Line: 3}},
		{"resource absolute", "resources:\n  - " + canary + "\n", nil,
			graph.BuildError{Message: `refused "` + canary + `": ` + outside, File: "apps/kustomization.yaml", Line: 2}},
		{"patch", "resources: [cm.yaml]\npatches:\n  - path: ../../canary.yaml\n", nil,
			graph.BuildError{Message: `refused "../../canary.yaml": ` + outside, File: "apps/kustomization.yaml", Line: 3}},
		{"component", "resources: [cm.yaml]\ncomponents:\n  - ../..\n", nil,
			graph.BuildError{Message: `refused "../..": ` + outside, File: "apps/kustomization.yaml", Line: 3}},
		{"configMapGenerator files", "configMapGenerator:\n  - name: x\n    files:\n      - key=../../canary.yaml\n", nil,
			graph.BuildError{Message: `refused "../../canary.yaml": ` + outside, File: "apps/kustomization.yaml", Line: 4}},
		{"configMapGenerator envs", "configMapGenerator:\n  - name: x\n    envs: [../../canary.yaml]\n", nil,
			graph.BuildError{Message: `refused "../../canary.yaml": ` + outside, File: "apps/kustomization.yaml", Line: 3}},
		{"secretGenerator absolute", "secretGenerator:\n  - name: x\n    files: [" + canary + "]\n", nil,
			graph.BuildError{Message: `refused "` + canary + `": ` + outside, File: "apps/kustomization.yaml", Line: 3}},
		{"file symlink absolute", "resources: [cm.yaml, link.yaml]\n", map[string]string{"apps/link.yaml": canary},
			graph.BuildError{Message: `refused "link.yaml": apps/link.yaml is a symlink, which source-controller leaves out of the artifact`, File: "apps/kustomization.yaml", Line: 1}},
		{"file symlink relative", "resources:\n  - link.yaml\n", map[string]string{"apps/link.yaml": "../../" + filepath.Base(outer) + "/canary.yaml"},
			graph.BuildError{Message: `refused "link.yaml": apps/link.yaml is a symlink, which source-controller leaves out of the artifact`, File: "apps/kustomization.yaml", Line: 2}},
		{"dir symlink absolute", "resources:\n  - cm.yaml\n  - linked\n", map[string]string{"apps/linked": outer},
			graph.BuildError{Message: `refused "linked": apps/linked is a symlink, which source-controller leaves out of the artifact`, File: "apps/kustomization.yaml", Line: 3}},
		{"dir symlink relative with a file below", "resources:\n  - linked/canary.yaml\n", map[string]string{"apps/linked": "../../" + filepath.Base(outer)},
			graph.BuildError{Message: `refused "linked/canary.yaml": apps/linked is a symlink, which source-controller leaves out of the artifact`, File: "apps/kustomization.yaml", Line: 2}},
		{"kustomization.yaml symlink", "", map[string]string{"apps/kustomization.yaml": filepath.Join(outer, "kustomization.yaml")},
			graph.BuildError{Message: `refused apps/kustomization.yaml: apps/kustomization.yaml is a symlink, which source-controller leaves out of the artifact`, File: "apps/kustomization.yaml", Line: 1}},
		{"generated kustomization with a symlinked manifest", "", map[string]string{"apps/sub/link.yaml": canary},
			graph.BuildError{Message: `refused apps/sub/link.yaml: apps/sub/link.yaml is a symlink, which source-controller leaves out of the artifact`, File: "apps/sub/link.yaml", Line: 1}}, // the refused file, not the folder
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"apps/cm.yaml": cm("default", "a")}
			if tc.kustomization != "" {
				files["apps/kustomization.yaml"] = tc.kustomization
			}
			root := filepath.Join(t.TempDir(), "repo")
			for p, c := range merge(bootstrap("dev"), map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps")}, files) {
				full := filepath.Join(root, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for link, target := range tc.links {
				full := filepath.Join(root, filepath.FromSlash(link))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if strings.HasPrefix(target, "../../") { // relative to the link, up to the temp dir
					target = "../" + target
				}
				if err := os.Symlink(target, full); err != nil {
					t.Fatal(err)
				}
			}
			g := renderWithin(t, root, Options{})
			apps := g.Cluster("dev").Kustomizations[appsRef]
			if apps.Err == nil {
				t.Fatalf("apps built %d objects, want a refusal", len(apps.Objects))
			}
			if d := cmp.Diff(tc.want, *apps.Err); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
		})
	}
}

func TestPluginsAndExecutionAreRefused(t *testing.T) {
	marks := t.TempDir()
	// Every way to run a program writes a file into marks; none may appear.
	script := "#!/bin/sh\ntouch " + marks + "/$(basename $0)-ran\n"
	bin := t.TempDir()
	for _, name := range []string{"helm", "git", "docker", "podman", "fn"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	plugins := t.TempDir()
	pluginDir := filepath.Join(plugins, "kustomize", "plugin", "example.com", "v1", "inflator")
	if err := os.MkdirAll(pluginDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pluginDir, "Inflator"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CONFIG_HOME", plugins)
	t.Setenv("KUSTOMIZE_PLUGIN_HOME", filepath.Join(plugins, "kustomize", "plugin"))

	fn := func(spec string) string {
		return "apiVersion: example.com/v1\nkind: Fn\nmetadata:\n  name: f\n  annotations:\n    config.kubernetes.io/function: |\n" + spec
	}
	const builtinOnly = "kustomize-controller runs builtin plugins only, without Helm, so nothing was run: "
	cases := []struct {
		name  string
		files map[string]string
		want  graph.BuildError
	}{
		{"exec KRM function transformer", map[string]string{
			"apps/kustomization.yaml": "resources: [cm.yaml]\ntransformers:\n  - fn.yaml\n",
			"apps/fn.yaml":            fn("      exec:\n        path: " + bin + "/fn\n"),
		}, graph.BuildError{Message: builtinOnly + "external plugins disabled; unable to load external plugin 'Fn'", File: "apps/kustomization.yaml", Line: 2}},
		{"container KRM function generator", map[string]string{
			"apps/kustomization.yaml": "resources: [cm.yaml]\ngenerators:\n  - fn.yaml\n",
			"apps/fn.yaml":            fn("      container:\n        image: example.com/evil:1\n"),
		}, graph.BuildError{Message: builtinOnly + "loading generator plugins: failed to load generator: external plugins disabled; unable to load external plugin 'Fn'", File: "apps/kustomization.yaml", Line: 2}},
		{"exec plugin by kind", map[string]string{
			"apps/kustomization.yaml": "resources: [cm.yaml]\ntransformers:\n  - |\n    apiVersion: example.com/v1\n    kind: Inflator\n    metadata:\n      name: i\n",
		}, graph.BuildError{Message: builtinOnly + "external plugins disabled; unable to load external plugin 'Inflator'", File: "apps/kustomization.yaml", Line: 2}},
		{"helmCharts", map[string]string{
			"apps/kustomization.yaml": "resources: [cm.yaml]\nhelmCharts:\n  - name: podinfo\n    repo: https://stefanprodan.github.io/podinfo\n    version: 6.0.0\n",
		}, graph.BuildError{Message: builtinOnly + "trouble configuring builtin HelmChartInflationGenerator with config: `\nname: podinfo\nrepo: https://stefanprodan.github.io/podinfo\nversion: 6.0.0\n`: must specify --enable-helm", File: "apps/kustomization.yaml", Line: 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := hostile(t, merge(map[string]string{"apps/cm.yaml": cm("default", "a")}, tc.files))
			apps := render(t, dir, nil).Cluster("dev").Kustomizations[appsRef]
			if apps.Err == nil {
				t.Fatalf("apps built %d objects, want a refusal", len(apps.Objects))
			}
			if d := cmp.Diff(tc.want, *apps.Err); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
			ran, err := os.ReadDir(marks)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range ran {
				t.Errorf("%s ran", e.Name())
			}
		})
	}
}

func TestTreeLimitsFailRender(t *testing.T) {
	deep := strings.Repeat("d/", 70) + "cm.yaml"
	cases := []struct {
		name   string
		files  func(t *testing.T, dir string)
		limits graph.Limits
		want   string
	}{
		{"depth", func(t *testing.T, dir string) { write(t, dir, deep, cm("", "deep")) }, graph.Limits{},
			"render limit exceeded: MaxDepth is 64, " + strings.Repeat("d/", 64) + "d is 65 deep"},
		{"total bytes", func(t *testing.T, dir string) {
			sparse(t, filepath.Join(dir, "a/big1.yaml"), 6<<20)
			sparse(t, filepath.Join(dir, "b/big2.yaml"), 6<<20)
		}, graph.Limits{MaxTotalBytes: 10 << 20}, "render limit exceeded: MaxTotalBytes is 10485760, reached at b/big2.yaml"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := hostile(t, map[string]string{"apps/cm.yaml": cm("default", "a")})
			tc.files(t, dir)
			_, err := Render(context.Background(), dir, Options{Limits: tc.limits})
			if !errors.Is(err, graph.ErrLimitExceeded) {
				t.Fatalf("err = %v, want graph.ErrLimitExceeded", err)
			}
			if got := strings.TrimPrefix(err.Error(), "render "+dir+": "); got != tc.want {
				t.Errorf("err = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestManyTinyFiles renders a tree of 100,000 small manifests under a file limit that
// trips, then under one that does not.
func TestManyTinyFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100,000 files")
	}
	dir := hostile(t, map[string]string{"apps/kustomization.yaml": "resources: [cm.yaml]\n", "apps/cm.yaml": cm("default", "a")})
	for i := range 100000 {
		write(t, dir, "noise/"+itoa(i/1000)+"/"+itoa(i)+".txt", "x")
	}
	_, err := Render(context.Background(), dir, Options{Limits: graph.Limits{MaxFiles: 50000}})
	if !errors.Is(err, graph.ErrLimitExceeded) || !strings.Contains(err.Error(), "MaxFiles is 50000, reached at ") {
		t.Fatalf("err = %v, want MaxFiles exceeded", err)
	}
	g, err := Render(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"flux-system/apps ConfigMap/default/a apps/cm.yaml:2"}, ownedBy(g.Cluster("dev"), appsRef)); d != "" {
		t.Errorf("objects (-want +got):\n%s", d)
	}
}

func TestBuildLimitsFailTheKustomization(t *testing.T) {
	// 16 levels, each including the next twice under two prefixes: 65,536 ConfigMaps.
	doubling := map[string]string{"apps/kustomization.yaml": "resources: [l0]\n", "apps/l16/kustomization.yaml": "resources: [cm.yaml]\n", "apps/l16/cm.yaml": cm("default", "a")}
	for i := range 16 {
		doubling["apps/l"+itoa(i)+"/kustomization.yaml"] = "resources: [a, b]\n"
		for _, side := range []string{"a", "b"} {
			doubling["apps/l"+itoa(i)+"/"+side+"/kustomization.yaml"] = "namePrefix: " + side + "-\nresources: [../../l" + itoa(i+1) + "]\n"
		}
	}
	bomb := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	prev := "a"
	for _, c := range "bcdefghi" {
		bomb += "  " + string(c) + ": &" + string(c) + " [*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + "]\n"
		prev = string(c)
	}
	cases := []struct {
		name   string
		files  map[string]string
		big    string // a sparse file of 20 MiB at this path
		limits graph.Limits
		want   graph.BuildError
	}{
		{"file over MaxFileBytes", map[string]string{"apps/kustomization.yaml": "resources:\n  - cm.yaml\n  - big.yaml\n", "apps/cm.yaml": cm("default", "a")}, "apps/big.yaml", graph.Limits{},
			graph.BuildError{Message: `refused "big.yaml": apps/big.yaml has 20971520 bytes, over tiergate's per-file limit of 8388608 (--max-file-bytes)`, File: "apps/kustomization.yaml", Line: 3, Limit: true}},
		{"generated kustomization with a big manifest", map[string]string{"apps/cm.yaml": cm("default", "a")}, "apps/big.yaml", graph.Limits{},
			graph.BuildError{Message: `refused apps/big.yaml: apps/big.yaml has 20971520 bytes, over tiergate's per-file limit of 8388608 (--max-file-bytes)`, File: "apps/big.yaml", Line: 1, Limit: true}}, // the refused file, not the folder
		{"bases included many times over", doubling, "", graph.Limits{MaxBuildFiles: 1000},
			graph.BuildError{Message: `refused "../../l16": the build has read more than tiergate's limit of 1000 files (--max-build-files); a base included many times over multiplies its files`, File: "apps/l15/b/kustomization.yaml", Line: 2, Limit: true}},
		{"a big base included many times over", merge(doubling, map[string]string{"apps/l16/cm.yaml": cm("default", "a", "pad: "+strings.Repeat("x", 100<<10))}), "", graph.Limits{MaxBuildBytes: 1 << 20},
			graph.BuildError{Message: `refused "cm.yaml": the build has read more than tiergate's limit of 1048576 bytes (--max-build-bytes); a base included many times over multiplies its size`, File: "apps/l16/kustomization.yaml", Line: 1, Limit: true}},
		{"YAML alias bomb", map[string]string{"apps/kustomization.yaml": "resources: [bomb.yaml]\n", "apps/bomb.yaml": bomb}, "", graph.Limits{},
			graph.BuildError{Message: `refused "bomb.yaml": apps/bomb.yaml has YAML aliases that expand to 490329075 nodes from 56, which kustomize would expand without bound (billion laughs)`, File: "apps/kustomization.yaml", Line: 1}},
		{"objects over MaxObjects", map[string]string{"apps/kustomization.yaml": "resources: [a.yaml, b.yaml]\n", "apps/a.yaml": cm("default", "a"), "apps/b.yaml": cm("default", "b")}, "", graph.Limits{MaxObjects: 4},
			graph.BuildError{Message: "not rendered: the cluster renders more than tiergate's limit of 4 objects (--max-objects)", File: "clusters/dev/apps.yaml", Line: 2, Limit: true}},
		{"a long variable referenced many times over", map[string]string{
			"clusters/dev/apps.yaml": ks("apps", "./apps", "postBuild:", "  substitute:", "    X: "+strings.Repeat("x", 1<<10)),
			"apps/cm.yaml":           cm("default", "a", "k: "+strings.Repeat("${X}", 2000))}, "", graph.Limits{MaxBuildBytes: 1 << 20},
			graph.BuildError{Message: "postBuild substitution of ConfigMap.v1.[noGrp]/a.default would write more than tiergate's limit of 1048576 bytes (--max-build-bytes); a long variable referenced many times multiplies its size", File: "apps/cm.yaml", Line: 2, Limit: true}},
		{"a replacement that multiplies a variable", map[string]string{
			"clusters/dev/apps.yaml": ks("apps", "./apps", "postBuild:", "  substitute:", "    X: "+strings.Repeat("a", 1<<10), "    Y: "+strings.Repeat("b", 1<<10)),
			"apps/cm.yaml":           cm("default", "a", "k: ${X//a/${Y}}${X//a/${Y}}")}, "", graph.Limits{MaxBuildBytes: 1 << 20},
			graph.BuildError{Message: "postBuild substitution of ConfigMap.v1.[noGrp]/a.default would write more than tiergate's limit of 1048576 bytes (--max-build-bytes); a long variable referenced many times multiplies its size", File: "apps/cm.yaml", Line: 2, Limit: true}},
		{"substitution across the cluster", map[string]string{
			"clusters/dev/a-first.yaml": ks("a-first", "./first", "postBuild:", "  substitute:", "    X: "+strings.Repeat("x", 1<<10)),
			"first/cm.yaml":             cm("default", "first", "k: "+strings.Repeat("${X}", 600)),
			"clusters/dev/apps.yaml":    ks("apps", "./apps", "postBuild:", "  substitute:", "    X: "+strings.Repeat("x", 1<<10)),
			"apps/cm.yaml":              cm("default", "a", "k: "+strings.Repeat("${X}", 600))}, "", graph.Limits{MaxBuildBytes: 1 << 20, MaxSubstitutedBytes: 1 << 20},
			graph.BuildError{Message: "not rendered: postBuild substitution in the cluster writes more than tiergate's limit of 1048576 bytes (--max-substituted-bytes)", File: "clusters/dev/apps.yaml", Line: 2, Limit: true}},
		{"time limit", map[string]string{"apps/cm.yaml": cm("default", "a")}, "", graph.Limits{Timeout: time.Nanosecond},
			graph.BuildError{Message: "not rendered: the review reached tiergate's render time limit of 1ns (--render-timeout)", File: "clusters/dev/flux-system/gotk-sync.yaml", Line: 10, Limit: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := hostile(t, tc.files)
			if tc.big != "" {
				sparse(t, filepath.Join(dir, tc.big), 20<<20)
			}
			c := renderWithin(t, dir, Options{Limits: tc.limits}).Cluster("dev")
			ks := c.Kustomizations[appsRef]
			if tc.limits.Timeout > 0 {
				ks = c.Kustomizations[c.Root]
			}
			if ks == nil || ks.Err == nil {
				t.Fatalf("Kustomization %v, want a build error", ks)
			}
			if d := cmp.Diff(tc.want, *ks.Err); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
		})
	}
}

func TestNestedKustomizationLimit(t *testing.T) {
	// A chain of 3,000 nested Kustomizations: each one's folder holds the next one.
	files := map[string]string{"clusters/dev/k0.yaml": ks("k0", "./apps/k0")}
	for i := range 3000 {
		files["apps/k"+itoa(i)+"/next.yaml"] = ks("k"+itoa(i+1), "./apps/k"+itoa(i+1))
	}
	dir := tree(t, merge(bootstrap("dev"), files))
	c := renderWithin(t, dir, Options{Limits: graph.Limits{MaxKustomizations: 30}}).Cluster("dev")
	var built []string
	for _, ref := range c.Order {
		if k := c.Kustomizations[ref]; k.Err == nil {
			built = append(built, ref.Name)
		}
	}
	want := []string{"flux-system"}
	for i := range 29 {
		want = append(want, "k"+itoa(i))
	}
	if d := cmp.Diff(want, built); d != "" {
		t.Errorf("built (-want +got):\n%s", d)
	}
	last := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "k29"}]
	wantErr := graph.BuildError{Message: "not rendered: the cluster has more than tiergate's limit of 30 Kustomizations (--max-kustomizations)", File: "apps/k28/next.yaml", Line: 2, Limit: true}
	if last == nil || last.Err == nil || len(c.Kustomizations) != 31 {
		t.Fatalf("%d Kustomizations, k29 = %v; want 31 and k29 refused", len(c.Kustomizations), last)
	}
	if d := cmp.Diff(wantErr, *last.Err); d != "" {
		t.Errorf("k29 error (-want +got):\n%s", d)
	}
}

func TestManyObjectsInOneBuild(t *testing.T) {
	var many strings.Builder
	for i := range 1200 {
		many.WriteString(cm("default", "c"+itoa(i)) + "---\n")
	}
	dir := hostile(t, map[string]string{"apps/kustomization.yaml": "resources:\n  - many.yaml\n", "apps/many.yaml": many.String()})
	apps := renderWithin(t, dir, Options{Limits: graph.Limits{MaxBuildDocuments: 1000}}).Cluster("dev").Kustomizations[appsRef]
	want := graph.BuildError{Message: `refused "many.yaml": the build has read more than tiergate's limit of 1000 YAML documents (--max-build-documents); kustomize's time grows with their square`, File: "apps/kustomization.yaml", Line: 2, Limit: true}
	if apps.Err == nil {
		t.Fatalf("apps built %d objects, want a refusal", len(apps.Objects))
	}
	if d := cmp.Diff(want, *apps.Err); d != "" {
		t.Errorf("error (-want +got):\n%s", d)
	}
}

// ownedBy lists "owner id file:line" for the objects of one Kustomization, sorted.
func ownedBy(c *graph.Cluster, ref graph.Ref) []string {
	var out []string
	for _, s := range objects(c) {
		if strings.HasPrefix(s, ref.String()+" ") {
			out = append(out, s)
		}
	}
	return out
}

func write(t *testing.T, dir, rel, content string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sparse creates a file of size bytes that takes no disk space.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err == nil {
		err = f.Truncate(size)
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}
