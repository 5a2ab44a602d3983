package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	helmfileHead = "../../testdata/scenarios/helmfile-bootstrap/head"
	hint         = "; no HelmRelease in the repository manages release external-secrets in namespace external-secrets" +
		" (if its chart is external-secrets, list it under preinstalledCRDs.charts)"
)

// TestGraphPreinstalled: `bot graph` says where each preinstalled CRD group comes from, a
// bootstrap helmfile release or the configuration, and which releases it could not read.
func TestGraphPreinstalled(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "tiergate.yaml")
	if err := os.WriteFile(cfg, []byte("preinstalledCRDs:\n  groups: [gateway.networking.k8s.io, cert-manager.io]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code, err := run(t, "graph", "--dir", helmfileHead, "--config", cfg)
	if code != 0 {
		t.Fatal(err)
	}
	// From the preinstalled line on (the Kustomizations and HelmReleases come before it).
	got := out[max(strings.Index(out, "\npreinstalled: ")+1, 0):]
	want := "preinstalled: acme.cert-manager.io (helmfile bootstrap/helmfile.d/01-apps.yaml.gotmpl:7, chart cert-manager), " +
		"cert-manager.io (helmfile bootstrap/helmfile.d/01-apps.yaml.gotmpl:7, chart cert-manager), " +
		"gateway.networking.k8s.io (" + cfg + "), " +
		"grafana.integreatly.org (helmfile bootstrap/helmfile.d/00-crds.yaml:7, chart grafana-operator)\n" +
		"helmfile bootstrap/helmfile.d/01-apps.yaml.gotmpl:11: release external-secrets: chart is templated: not read" + hint + "\n"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("text (-want +got):\n%s", d)
	}

	out, code, err = run(t, "graph", "--dir", helmfileHead, "--format", "json")
	if code != 0 {
		t.Fatal(err)
	}
	var graphs []struct {
		Cluster      string           `json:"cluster"`
		Preinstalled []map[string]any `json:"preinstalled"`
		Notes        []map[string]any `json:"helmfileNotes"`
	}
	if err := json.Unmarshal([]byte(out), &graphs); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	from := func(g, f string) map[string]any { return map[string]any{"group": g, "from": f} }
	wantPre := []map[string]any{
		from("acme.cert-manager.io", "helmfile bootstrap/helmfile.d/01-apps.yaml.gotmpl:7, chart cert-manager"),
		from("cert-manager.io", "helmfile bootstrap/helmfile.d/01-apps.yaml.gotmpl:7, chart cert-manager"),
		from("grafana.integreatly.org", "helmfile bootstrap/helmfile.d/00-crds.yaml:7, chart grafana-operator"),
	}
	wantNotes := []map[string]any{{"file": "bootstrap/helmfile.d/01-apps.yaml.gotmpl", "line": float64(11),
		"text": "release external-secrets: chart is templated: not read" + hint}}
	if len(graphs) != 1 || graphs[0].Cluster != "home" {
		t.Fatalf("graphs: %s", out)
	}
	if d := cmp.Diff(wantPre, graphs[0].Preinstalled); d != "" {
		t.Errorf("preinstalled (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantNotes, graphs[0].Notes); d != "" {
		t.Errorf("notes (-want +got):\n%s", d)
	}
}

// TestGraphPreinstalledFromHelmRelease: a helmfile release whose chart is templated takes
// the chart of the HelmRelease that manages the same Helm release, and says so.
func TestGraphPreinstalledFromHelmRelease(t *testing.T) {
	out, code, err := run(t, "graph", "--dir", "../../testdata/scenarios/helmfile-templated-charts/head")
	if code != 0 {
		t.Fatal(err)
	}
	got := out[max(strings.Index(out, "\npreinstalled: ")+1, 0):]
	match := " (release name and namespace match))"
	want := "preinstalled: acme.cert-manager.io (helmfile bootstrap/helmfile/apps.yaml:9, chart cert-manager, from HelmRelease cert-manager/cert-manager" + match + ", " +
		"cert-manager.io (helmfile bootstrap/helmfile/apps.yaml:9, chart cert-manager, from HelmRelease cert-manager/cert-manager" + match + ", " +
		"cilium.io (helmfile bootstrap/helmfile/apps.yaml:7, chart cilium, from HelmRelease kube-system/cilium" + match + ", " +
		"gateway.envoyproxy.io (helmfile bootstrap/helmfile/crds.yaml:11, chart gateway-helm, from HelmRelease network/envoy-gateway" + match + ", " +
		"monitoring.coreos.com (helmfile bootstrap/helmfile/crds.yaml:13, chart kube-prometheus-stack, from HelmRelease o11y/kube-prometheus-stack" + match + "\n" +
		"helmfile bootstrap/helmfile/crds.yaml:15: release snapshot-controller: chart is templated: not read; " +
		"no HelmRelease in the repository manages release snapshot-controller in namespace kube-system " +
		"(if its chart is snapshot-controller, list it under preinstalledCRDs.charts)\n"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("text (-want +got):\n%s", d)
	}
}

// TestGraphHelmRelease: `bot graph` lists the objects a HelmRelease's chart renders under
// it, in text and Mermaid.
func TestGraphHelmRelease(t *testing.T) {
	dir := "../../testdata/scenarios/helm-in-repo/head"
	out, code, err := run(t, "graph", "--dir", dir)
	if code != 0 {
		t.Fatal(err)
	}
	want := `cluster dev (root clusters/dev, 3 Kustomizations, 10 objects)
  flux-system/flux-system  path=./clusters/dev prune=true dependsOn=[]  4 objects
  flux-system/apps  path=./apps prune=true dependsOn=[flux-system/infra]  5 objects
    HelmRelease default/podinfo  chart charts/podinfo 1.1.0, 4 objects
      CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com
      ConfigMap/default/podinfo-common
      Service/default/podinfo
      Deployment.apps/default/podinfo
  flux-system/infra  path=./infra prune=true dependsOn=[]  1 object
`
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("text (-want +got):\n%s", d)
	}
	out, code, err = run(t, "graph", "--dir", dir, "--format", "mermaid")
	if code != 0 {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out, "  h_flux_system_apps_default_podinfo[\"HelmRelease default/podinfo #40;4 objects#41;\"]\n  k_flux_system_apps --- h_flux_system_apps_default_podinfo\n") {
		t.Errorf("mermaid does not end with the HelmRelease node:\n%s", out)
	}
}
