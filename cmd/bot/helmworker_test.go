package main

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/helm"
	"github.com/tiergate/tiergate/internal/render/helm/sandbox"
)

// TestHelmWorkerCommand runs the hidden helm-worker command as a Pool's child (the test
// binary re-executed with that argument, served by TestMain) and checks that a render crosses it exactly as
// helm.Render returns it in-process.
func TestHelmWorkerCommand(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := sandbox.NewPool(sandbox.Options{Size: 1, Command: []string{exe, "helm-worker"}})
	defer p.Close()
	c, err := loader.LoadFiles([]*archive.BufferedFile{
		{Name: "Chart.yaml", Data: []byte("apiVersion: v2\nname: app\nversion: 1.0.0\n")},
		{Name: "templates/ns.yaml", Data: []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {{ .Release.Namespace }}\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	hr := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
		"metadata": map[string]any{"name": "app", "namespace": "apps"},
		"spec":     map[string]any{"targetNamespace": "team-a"},
	}}
	req := helm.Request{Chart: c, HelmRelease: hr, Values: map[string]any{"n": int64(1)}}
	want, wantErr := helm.Render(context.Background(), req)
	if wantErr != nil || len(want.Docs) != 1 || want.Docs[0].Object["metadata"].(map[string]any)["name"] != "team-a" {
		t.Fatalf("helm.Render in-process = %+v, %v; want the Namespace team-a", want, wantErr)
	}
	got, gotErr := p.Render(context.Background(), req)
	if diff := cmp.Diff(errString(wantErr), errString(gotErr)); diff != "" {
		t.Errorf("error (-in-process +worker):\n%s", diff)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result (-in-process +worker):\n%s", diff)
	}
	if n := p.Started(); n != 1 {
		t.Errorf("workers started = %d, want 1", n)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
