package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/helm"
)

// chartRelease is the HelmRelease tiergate/tiergate that installs deploy/chart (as
// deploy/flux-helm does); Render takes its release name and namespace from it.
func chartRelease() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "helm.toolkit.fluxcd.io/v2",
		"kind":       "HelmRelease",
		"metadata":   map[string]any{"name": "tiergate", "namespace": "tiergate"},
		"spec": map[string]any{"chart": map[string]any{"spec": map[string]any{
			"chart": "./deploy/chart", "sourceRef": map[string]any{"kind": "GitRepository", "name": "tiergate", "namespace": "flux-system"}}}},
	}}
}

// renderChart renders deploy/chart with values as helm-controller installs it.
func renderChart(t *testing.T, values string) (*helm.Result, error) {
	t.Helper()
	c, err := loader.LoadDir(filepath.Join(repoRoot, "deploy", "chart"))
	if err != nil {
		t.Fatal(err)
	}
	var vals map[string]any
	if err := sigsyaml.Unmarshal([]byte(values), &vals); err != nil {
		t.Fatal(err)
	}
	return helm.Render(context.Background(), helm.Request{Chart: c, HelmRelease: chartRelease(), Values: vals})
}

// TestChartRender renders deploy/chart with each values set of testdata/chart and compares
// the objects, in install order, with the expected file: every field, after the
// helm-controller's post-renderers. The built-in kinds must also decode strictly into their
// API types, and the container's args must be `bot serve` flags.
func TestChartRender(t *testing.T) {
	for _, name := range []string{"github-app", "github-token-monitoring", "forgejo-no-persistence"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("testdata", "chart", name)
			values, err := os.ReadFile(filepath.Join(dir, "values.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(dir, "want.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			res, err := renderChart(t, string(values))
			if err != nil {
				t.Fatal(err)
			}
			var docs []string
			for _, d := range res.Docs {
				data, err := sigsyaml.Marshal(d.Object)
				if err != nil {
					t.Fatal(err)
				}
				docs = append(docs, "# "+d.Template+"\n"+string(data))
				checkChartObject(t, d.Object, data)
			}
			if diff := cmp.Diff(string(want), strings.Join(docs, "---\n")); diff != "" {
				t.Errorf("%s (-want +got):\n%s", filepath.Join(dir, "want.yaml"), diff)
			}
			if len(res.Approximate) != 0 {
				t.Errorf("Approximate = %q, want none", res.Approximate)
			}
		})
	}
}

// checkChartObject decodes a Deployment or NetworkPolicy strictly and parses the
// Deployment's args and env names as `bot serve` does.
func checkChartObject(t *testing.T, obj map[string]any, data []byte) {
	t.Helper()
	switch obj["kind"] {
	case "NetworkPolicy":
		if err := sigsyaml.UnmarshalStrict(data, &networkingv1.NetworkPolicy{}); err != nil {
			t.Errorf("NetworkPolicy: %v", err)
		}
	case "Deployment":
		var d appsv1.Deployment
		if err := sigsyaml.UnmarshalStrict(data, &d); err != nil {
			t.Fatalf("Deployment: %v", err)
		}
		c := d.Spec.Template.Spec.Containers[0]
		serve := serveCmd()
		if err := serve.ParseFlags(c.Args[1:]); err != nil {
			t.Errorf("args %q: %v", c.Args, err)
		}
		for _, e := range c.Env {
			name, ok := strings.CutPrefix(e.Name, envPrefix)
			if ok && serve.Flags().Lookup(strings.ToLower(strings.ReplaceAll(name, "_", "-"))) == nil {
				t.Errorf("env %s is no flag of bot serve", e.Name)
			}
		}
	}
	if typed := typedObject(obj["kind"].(string)); typed != nil {
		if err := sigsyaml.UnmarshalStrict(data, typed); err != nil {
			t.Errorf("%s: %v", obj["kind"], err)
		}
	}
}

// TestChartRefuses checks that the chart refuses, at install, the settings `bot serve`
// would refuse at start.
func TestChartRefuses(t *testing.T) {
	const prefix = "render HelmRelease tiergate/tiergate (chart tiergate 0.1.0): "
	for _, tc := range []struct{ values, want string }{
		{"{}", "no forge: set github.appID or github.token, gitea.url, or existingSecret"},
		{"github: {appID: 1, webhookSecret: {secretName: s}}", "github.appKey.secretName: required with github.appID"},
		{"github: {appID: 1, appKey: {secretName: k}, token: {secretName: t}, webhookSecret: {secretName: s}}",
			"github: set appID (a GitHub App) or token, not both"},
		{"github: {token: {secretName: t}}", "github.webhookSecret.secretName: required with a GitHub App or token"},
		{"gitea: {url: https://codeberg.org, token: {secretName: t}}",
			"gitea.token.secretName and gitea.webhookSecret.secretName: required with gitea.url"},
	} {
		_, err := renderChart(t, tc.values)
		if err == nil {
			t.Errorf("%s: no error, want %q", tc.values, tc.want)
			continue
		}
		got, _ := strings.CutPrefix(err.Error(), prefix)
		if !strings.HasSuffix(got, tc.want) {
			t.Errorf("%s: error %q, want it to end in %q", tc.values, err, tc.want)
		}
	}
}

// TestChartMatchesBase checks that the chart's pod is deploy/base's: the same security
// contexts, probes, ports, resources, grace period, strategy and /tmp volume, so that a
// change to one shows up here until made to the other.
func TestChartMatchesBase(t *testing.T) {
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(deployFS(t), "/deploy/base")
	if err != nil {
		t.Fatal(err)
	}
	var base, chart appsv1.Deployment
	for _, r := range m.Resources() {
		if r.GetKind() == "Deployment" {
			data, err := r.AsYAML()
			if err != nil {
				t.Fatal(err)
			}
			if err := sigsyaml.Unmarshal(data, &base); err != nil {
				t.Fatal(err)
			}
		}
	}
	res, err := renderChart(t, "existingSecret: tiergate")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range res.Docs {
		if d.Object["kind"] == "Deployment" {
			data, _ := sigsyaml.Marshal(d.Object)
			if err := sigsyaml.Unmarshal(data, &chart); err != nil {
				t.Fatal(err)
			}
		}
	}
	type pod struct {
		Strategy       appsv1.DeploymentStrategy
		Replicas       *int32
		Grace          *int64
		AutomountToken *bool
		PodSecurity    *corev1.PodSecurityContext
		Security       *corev1.SecurityContext
		Args           []string
		EnvFrom        []corev1.EnvFromSource
		Env            []corev1.EnvVar
		Ports          []corev1.ContainerPort
		Liveness       *corev1.Probe
		Readiness      *corev1.Probe
		Resources      corev1.ResourceRequirements
		Tmp            *corev1.EmptyDirVolumeSource
	}
	of := func(d appsv1.Deployment) pod {
		s := d.Spec.Template.Spec
		c := s.Containers[0]
		var tmp *corev1.EmptyDirVolumeSource
		for _, v := range s.Volumes {
			if v.Name == "tmp" {
				tmp = v.EmptyDir
			}
		}
		return pod{d.Spec.Strategy, d.Spec.Replicas, s.TerminationGracePeriodSeconds, s.AutomountServiceAccountToken,
			s.SecurityContext, c.SecurityContext, c.Args, c.EnvFrom, c.Env, c.Ports, c.LivenessProbe, c.ReadinessProbe, c.Resources, tmp}
	}
	if diff := cmp.Diff(of(base), of(chart)); diff != "" {
		t.Errorf("deploy/base vs deploy/chart (-base +chart):\n%s", diff)
	}
}
