package pipeline

import (
	"os"
	"path/filepath"

	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/config"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// graphOf is one cluster owning the objects of docs (YAML), as a Kustomization's build.
func graphOf(t *testing.T, docs ...string) *graph.Graph {
	t.Helper()
	c := &graph.Cluster{Name: "main", Owners: map[graph.ObjectID][]*graph.Object{}}
	for _, d := range docs {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(d), &u.Object); err != nil {
			t.Fatal(err)
		}
		gv := u.GroupVersionKind()
		id := graph.ObjectID{Group: gv.Group, Kind: gv.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
		c.Owners[id] = append(c.Owners[id], &graph.Object{ID: id, Body: u})
	}
	return &graph.Graph{Clusters: []*graph.Cluster{c}}
}

const hrHead = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n"

func TestMatchRelease(t *testing.T) {
	for _, tc := range []struct {
		name, release, namespace string
		docs                     []string
		chart, from, why         string
	}{
		{
			name: "chartRef OCIRepository: last URL element", release: "envoy-gateway", namespace: "network",
			docs: []string{
				hrHead + "  name: envoy-gateway\n  namespace: network\nspec:\n  chartRef:\n    kind: OCIRepository\n    name: envoy-gateway\n",
				"apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: envoy-gateway\n  namespace: network\nspec:\n  url: oci://mirror.gcr.io/envoyproxy/gateway-helm\n",
			},
			chart: "gateway-helm", from: "network/envoy-gateway",
		},
		{
			name: "chartRef HelmChart in another namespace", release: "cilium", namespace: "kube-system",
			docs: []string{
				hrHead + "  name: cilium\n  namespace: kube-system\nspec:\n  chartRef:\n    kind: HelmChart\n    name: cilium\n    namespace: flux-system\n",
				"apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmChart\nmetadata:\n  name: cilium\n  namespace: flux-system\nspec:\n  chart: cilium\n",
			},
			chart: "cilium", from: "kube-system/cilium",
		},
		{
			name: "releaseName and storageNamespace", release: "certs", namespace: "cert-manager",
			docs: []string{hrHead + "  name: cert-manager\n  namespace: flux-system\nspec:\n  releaseName: certs\n  storageNamespace: cert-manager\n" +
				"  chart:\n    spec:\n      chart: cert-manager\n"},
			chart: "cert-manager", from: "flux-system/cert-manager",
		},
		{
			name: "targetNamespace prefixes the name; storage stays the HelmRelease's namespace", release: "o11y-kube-prometheus-stack", namespace: "flux-system",
			docs: []string{hrHead + "  name: kube-prometheus-stack\n  namespace: flux-system\nspec:\n  targetNamespace: o11y\n" +
				"  chart:\n    spec:\n      chart: kube-prometheus-stack\n"},
			chart: "kube-prometheus-stack", from: "flux-system/kube-prometheus-stack",
		},
		{
			// sha256("a-namespace-name-that-is-long-an-app-with-a-name-long-enough") starts a95f3865db8a
			name: "a name past 53 characters is shortened", release: "a-namespace-name-that-is-long-an-app-wit-a95f3865db8a", namespace: "apps",
			docs: []string{hrHead + "  name: an-app-with-a-name-long-enough\n  namespace: apps\nspec:\n  targetNamespace: a-namespace-name-that-is-long\n" +
				"  chart:\n    spec:\n      chart: app\n"},
			chart: "app", from: "apps/an-app-with-a-name-long-enough",
		},
		{
			name: "no match: another storage namespace", release: "snapshot-controller", namespace: "kube-system",
			docs: []string{hrHead + "  name: snapshot-controller\n  namespace: storage\nspec:\n  chart:\n    spec:\n      chart: snapshot-controller\n"},
			why:  "no HelmRelease in the repository manages release snapshot-controller in namespace kube-system",
		},
		{
			name: "ambiguous: two HelmReleases manage the release", release: "grafana", namespace: "o11y",
			docs: []string{
				hrHead + "  name: grafana\n  namespace: o11y\nspec:\n  chart:\n    spec:\n      chart: grafana\n",
				hrHead + "  name: dashboards\n  namespace: flux-system\nspec:\n  releaseName: grafana\n  storageNamespace: o11y\n  chart:\n    spec:\n      chart: grafana-operator\n",
			},
			why: "2 HelmReleases manage release grafana in namespace o11y: flux-system/dashboards (chart grafana-operator), o11y/grafana (chart grafana)",
		},
		{
			name: "the OCIRepository is not in the graph", release: "kopiur", namespace: "kopiur-system",
			docs: []string{hrHead + "  name: kopiur\n  namespace: kopiur-system\nspec:\n  chartRef:\n    kind: OCIRepository\n    name: kopiur\n"},
			why:  "HelmRelease kopiur-system/kopiur manages it, but its chart is not known",
		},
		{
			name: "no namespace in the helmfile", release: "spegel",
			docs: []string{hrHead + "  name: spegel\n  namespace: default\nspec:\n  chart:\n    spec:\n      chart: spegel\n"},
			why:  "its namespace is not set in the helmfile",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chart, from, why := matchRelease(releaseIndex(graphOf(t, tc.docs...)), tc.release, tc.namespace)
			if d := cmp.Diff([]string{tc.chart, tc.from, tc.why}, []string{chart, from, why}); d != "" {
				t.Errorf("chart, from, why (-want +got):\n%s", d)
			}
		})
	}
}

// TestPreinstalledFromHelmRelease: a templated chart takes the matching HelmRelease's chart
// and says so; a chart the helmfile names is kept even when that HelmRelease differs.
func TestPreinstalledFromHelmRelease(t *testing.T) {
	dir := t.TempDir()
	hf := `releases:
  - name: cert-manager
    namespace: cert-manager
    chart: jetstack/cert-manager
  - name: cilium
    namespace: kube-system
    chart: '{{ .Values.cilium }}'
`
	if err := os.WriteFile(filepath.Join(dir, "helmfile.yaml"), []byte(hf), 0o644); err != nil {
		t.Fatal(err)
	}
	tree, err := ReadDir(dir, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	g := graphOf(t,
		hrHead+"  name: cert-manager\n  namespace: cert-manager\nspec:\n  chart:\n    spec:\n      chart: kube-prometheus-stack\n",
		hrHead+"  name: cilium\n  namespace: kube-system\nspec:\n  chart:\n    spec:\n      chart: cilium\n",
	)
	pre, notes := Preinstalled(&config.Config{}, "", tree.Source, g)
	want := []PreinstalledGroup{
		{Group: "acme.cert-manager.io", From: "helmfile helmfile.yaml:2, chart cert-manager"},
		{Group: "cert-manager.io", From: "helmfile helmfile.yaml:2, chart cert-manager"},
		{Group: "cilium.io", From: "helmfile helmfile.yaml:5, chart cilium, from HelmRelease kube-system/cilium (release name and namespace match)"},
	}
	if d := cmp.Diff(want, pre); d != "" {
		t.Errorf("preinstalled (-want +got):\n%s", d)
	}
	if len(notes) != 0 {
		t.Errorf("notes: %v", notes)
	}
}

// TestBootstrapNamespaces: every bootstrap helmfile release's namespace, whether its chart
// is known or templated, that helmfile creates: not those of a helmfile only templated for
// its CRDs, nor with createNamespace false; none without a helmfile.
func TestBootstrapNamespaces(t *testing.T) {
	dir := t.TempDir()
	hf := `releases:
  - name: cert-manager
    namespace: cert-manager
    chart: jetstack/cert-manager
  - name: cilium
    namespace: network
    chart: '{{ .Values.cilium }}'
  - name: plain
    chart: jetstack/cert-manager
`
	// Only templated for its CRDs (--include-crds, as onedr0p's bootstrap/helmfile/crds.yaml):
	// no namespace of it is created, whether its chart is known or a template's output.
	crds := `# yaml-language-server: $schema=https://json.schemastore.org/helmfile
helmDefaults:
  args: [--include-crds, --no-hooks]
bases: [default.yaml]
defaultInherit: default
releases:
  - name: envoy-gateway
    namespace: crds-only-templated
  - name: snapshot-controller
    namespace: crds-only-known
    chart: piraeus/snapshot-controller
`
	base := "templates:\n  default:\n    chart: '{{ .Values.chart }}'\n"
	// createNamespace: false in helmDefaults, and a release that sets it back to true.
	noCreate := `# yaml-language-server: $schema=https://json.schemastore.org/helmfile
helmDefaults:
  createNamespace: false
releases:
  - name: a
    namespace: not-created
    chart: jetstack/cert-manager
  - name: b
    namespace: created-again
    chart: jetstack/cert-manager
    createNamespace: true
`
	for name, text := range map[string]string{"helmfile.yaml": hf, "crds.yaml": crds, "default.yaml": base, "nocreate.yaml": noCreate} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := ReadDir(dir, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]bool{"cert-manager": true, "network": true, "created-again": true}, BootstrapNamespaces(tree.Source, nil)); d != "" {
		t.Errorf("namespaces (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]bool{}, BootstrapNamespaces(nil, nil)); d != "" {
		t.Errorf("no source (-want +got):\n%s", d)
	}
}
