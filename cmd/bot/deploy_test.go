package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	sigsyaml "sigs.k8s.io/yaml"
)

// deployFS copies the repository's deploy/ into an in-memory file system at /deploy.
func deployFS(t *testing.T) filesys.FileSystem {
	t.Helper()
	mem := filesys.MakeFsInMemory()
	err := filepath.WalkDir(filepath.Join(repoRoot, "deploy"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(repoRoot, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return mem.WriteFile("/"+filepath.ToSlash(rel), data)
	})
	if err != nil {
		t.Fatal(err)
	}
	return mem
}

func TestDeployKustomizeBuild(t *testing.T) {
	base := []string{
		"Namespace /tiergate",
		"ServiceAccount tiergate/tiergate",
		"PersistentVolumeClaim tiergate/tiergate-data",
		"Deployment tiergate/tiergate",
		"Service tiergate/tiergate",
	}
	cases := []struct {
		name, kustomization string // "" builds deploy/base itself
		want                []string
	}{
		{"base", "", base},
		{"base with the servicemonitor component",
			"resources: [../deploy/base]\ncomponents: [../deploy/components/servicemonitor]\n",
			append(base[:len(base):len(base)], "ServiceMonitor tiergate/tiergate")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := deployFS(t)
			dir := "/deploy/base"
			if tc.kustomization != "" {
				dir = "/overlay"
				if err := mem.WriteFile(dir+"/kustomization.yaml", []byte(tc.kustomization)); err != nil {
					t.Fatal(err)
				}
			}
			m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(mem, dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range m.Resources() {
				got = append(got, r.GetKind()+" "+r.GetNamespace()+"/"+r.GetName())
				if obj := typedObject(r.GetKind()); obj != nil {
					data, err := r.AsYAML()
					if err != nil {
						t.Fatal(err)
					}
					if err := sigsyaml.UnmarshalStrict(data, obj); err != nil {
						t.Errorf("%s %s: %v", r.GetKind(), r.GetName(), err)
					}
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("objects (-want +got):\n%s", diff)
			}
		})
	}
}

// typedObject returns the Kubernetes API type of a built-in kind of deploy/, nil for others.
func typedObject(kind string) any {
	switch kind {
	case "Namespace":
		return &corev1.Namespace{}
	case "ServiceAccount":
		return &corev1.ServiceAccount{}
	case "PersistentVolumeClaim":
		return &corev1.PersistentVolumeClaim{}
	case "Service":
		return &corev1.Service{}
	case "Deployment":
		return &appsv1.Deployment{}
	}
	return nil
}

// TestDeployDeploymentMatchesServe checks the Deployment against `bot serve`: its args
// are serve's flags, the data directory is the PersistentVolumeClaim, the probes and the
// port are the server's, and /tmp (where reviews check out commits) is writable.
func TestDeployDeploymentMatchesServe(t *testing.T) {
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(deployFS(t), "/deploy/base")
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	for _, r := range m.Resources() {
		if r.GetKind() == "Deployment" {
			data, err := r.AsYAML()
			if err != nil {
				t.Fatal(err)
			}
			if err := sigsyaml.UnmarshalStrict(data, &d); err != nil {
				t.Fatal(err)
			}
		}
	}
	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	if len(c.Args) == 0 || c.Args[0] != "serve" {
		t.Fatalf("args %q, want serve ...", c.Args)
	}
	serve := serveCmd()
	if err := serve.ParseFlags(c.Args[1:]); err != nil {
		t.Fatalf("args %q: %v", c.Args, err)
	}
	flag := func(name string) string { return serve.Flags().Lookup(name).Value.String() }
	claims := map[string]string{}
	emptyDirs := map[string]bool{}
	for _, v := range pod.Volumes {
		if v.PersistentVolumeClaim != nil {
			claims[v.Name] = v.PersistentVolumeClaim.ClaimName
		}
		emptyDirs[v.Name] = v.EmptyDir != nil
	}
	mounts := map[string]string{}
	for _, vm := range c.VolumeMounts {
		switch {
		case claims[vm.Name] != "":
			mounts[vm.MountPath] = "pvc " + claims[vm.Name]
		case emptyDirs[vm.Name]:
			mounts[vm.MountPath] = "emptyDir"
		}
	}
	sc := c.SecurityContext
	got := map[string]any{
		"data dir":                 mounts[flag("data-dir")],
		"tmp":                      mounts["/tmp"],
		"listen":                   flag("listen"),
		"container port":           c.Ports[0].ContainerPort,
		"liveness":                 c.LivenessProbe.HTTPGet.Path + " " + c.LivenessProbe.HTTPGet.Port.String(),
		"readiness":                c.ReadinessProbe.HTTPGet.Path + " " + c.ReadinessProbe.HTTPGet.Port.String(),
		"readOnlyRootFilesystem":   *sc.ReadOnlyRootFilesystem,
		"allowPrivilegeEscalation": *sc.AllowPrivilegeEscalation,
		"capabilities.drop":        sc.Capabilities.Drop,
		"runAsNonRoot":             *pod.SecurityContext.RunAsNonRoot,
		"runAsUser":                *pod.SecurityContext.RunAsUser,
		"seccomp":                  pod.SecurityContext.SeccompProfile.Type,
		"envFrom":                  c.EnvFrom[0].SecretRef.Name,
	}
	want := map[string]any{
		"data dir":                 "pvc tiergate-data",
		"tmp":                      "emptyDir",
		"listen":                   ":8080",
		"container port":           int32(8080),
		"liveness":                 "/healthz http",
		"readiness":                "/readyz http",
		"readOnlyRootFilesystem":   true,
		"allowPrivilegeEscalation": false,
		"capabilities.drop":        []corev1.Capability{"ALL"},
		"runAsNonRoot":             true,
		"runAsUser":                int64(65532), // the distroless nonroot user of the Dockerfile
		"seccomp":                  corev1.SeccompProfileTypeRuntimeDefault,
		"envFrom":                  "tiergate",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Deployment (-want +got):\n%s", diff)
	}
}

// deployTree writes the repository's .tiergate.yaml and deploy/ to dir/side, the files a
// review of the tiergate repository reads (its GitRepository packs deploy/ alone).
func deployTree(t *testing.T, dir, side string, edit func(fluxKs string) string) {
	t.Helper()
	dst := filepath.Join(dir, side)
	if err := os.CopyFS(filepath.Join(dst, "deploy"), os.DirFS(filepath.Join(repoRoot, "deploy"))); err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(repoRoot, ".tiergate.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, ".tiergate.yaml"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	ksFile := filepath.Join(dst, "deploy", "flux", "flux-kustomization.yaml")
	ks, err := os.ReadFile(ksFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ksFile, []byte(edit(string(ks))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// deployReport is what TestDeployReview asserts of the JSON report: all but the revisions
// and timings. Ignored (findings that .tiergate.yaml silences, where supported) must stay empty.
type deployReport struct {
	Clusters             []any `json:"clusters"`
	Moves                []any `json:"moves"`
	Findings             []any `json:"findings"`
	Ignored              []any `json:"ignored"`
	Added                []any `json:"added"`
	Removed              []any `json:"removed"`
	Changed              []any `json:"changed"`
	KustomizationChanges []any `json:"kustomizationChanges"`
}

// TestDeployReview runs `bot review --repo R --base HEAD~1 --head HEAD --format json`, as the
// tiergate repository's CI reviews a change, on a repository holding the repository's own
// .tiergate.yaml and deploy/: tiergate must find nothing wrong with its own deployment.
func TestDeployReview(t *testing.T) {
	same := func(s string) string { return s }
	const commented = "  # components:\n  #   - ../components/servicemonitor\n"
	enableServiceMonitor := func(s string) string {
		if !strings.Contains(s, commented) {
			t.Fatalf("deploy/flux/flux-kustomization.yaml no longer has the lines\n%s", commented)
		}
		return strings.Replace(s, commented, "  components:\n    - ../components/servicemonitor\n", 1)
	}
	const componentsDiff = "--- base\n+++ head\n@@ -4,6 +4,8 @@\n   name: tiergate\n   namespace: flux-system\n spec:\n" +
		"+  components:\n+  - ../components/servicemonitor\n   images:\n   - name: tiergate\n     newName: ghcr.io/tiergate/tiergate\n"
	cluster := func(objects int) []any {
		return []any{
			map[string]any{"name": "tiergate", "root": "deploy/flux", "kustomizations": 2.0, "objects": float64(objects), "partial": []any{}},
			// The GitRepository, the HelmRelease of deploy/chart and what the chart renders:
			// its Namespace (createNamespace), ServiceAccount, PVC, Service and Deployment.
			map[string]any{"name": "tiergate-helm", "root": "deploy/flux-helm", "kustomizations": 1.0, "objects": 7.0, "partial": []any{}},
		}
	}
	cases := []struct {
		name string
		head func(string) string
		want deployReport
	}{
		{"unchanged", same, deployReport{Clusters: cluster(7)}},
		{"enable the ServiceMonitor component", enableServiceMonitor, deployReport{
			Clusters: cluster(8),
			Added: []any{map[string]any{
				"cluster":       "tiergate",
				"object":        map[string]any{"group": "monitoring.coreos.com", "kind": "ServiceMonitor", "namespace": "tiergate", "name": "tiergate"},
				"kustomization": "flux-system/tiergate",
				"file":          "deploy/components/servicemonitor/servicemonitor.yaml",
				"line":          2.0,
			}},
			Changed: []any{map[string]any{
				"cluster":       "tiergate",
				"object":        map[string]any{"group": "kustomize.toolkit.fluxcd.io", "kind": "Kustomization", "namespace": "flux-system", "name": "tiergate"},
				"kustomization": "flux-system/flux-system",
				"file":          "deploy/flux/flux-kustomization.yaml",
				"line":          5.0,
				"diff":          componentsDiff,
			}},
			KustomizationChanges: []any{map[string]any{
				"cluster":       "tiergate",
				"kustomization": "flux-system/tiergate",
				"change":        "changed",
				"file":          "deploy/flux/flux-kustomization.yaml",
				"line":          5.0,
				"diff":          componentsDiff,
			}},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			deployTree(t, dir, "base", same)
			deployTree(t, dir, "head", tc.head)
			repo := commitScenario(t, dir)
			var out bytes.Buffer
			err := runReview(context.Background(), &out, reviewFlags{repo: repo, base: "HEAD~1", head: "HEAD", format: "json", failOn: "notice"})
			if err != nil {
				t.Fatalf("bot review: exit %d: %v\n%s", exitCode(err), err, out.String())
			}
			var got deployReport
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("report (-want +got):\n%s", diff)
			}
		})
	}
}
