package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/registry"
	godigest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm/fetch"
)

// testChart packages a chart of name and version with the given templates.
func testChart(t *testing.T, name, version string, templates map[string]string) []byte {
	t.Helper()
	ch := &chart.Chart{Metadata: &chart.Metadata{APIVersion: chart.APIVersionV2, Name: name, Version: version}}
	for n, body := range templates {
		ch.Templates = append(ch.Templates, &common.File{Name: "templates/" + n, Data: []byte(body)})
	}
	out, err := chartutil.Save(ch, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// pushTestChart pushes archive to host/path:tag as Helm pushes a chart (config, one chart
// layer, the version annotation).
func pushTestChart(t *testing.T, host, path, version string, archive []byte) string {
	t.Helper()
	ctx := context.Background()
	repo, err := remote.NewRepository(host + "/" + path)
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	push := func(mediaType string, data []byte) ocispec.Descriptor {
		desc := ocispec.Descriptor{MediaType: mediaType, Digest: godigest.FromBytes(data), Size: int64(len(data))}
		if err := repo.Push(ctx, desc, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		return desc
	}
	cfgJSON, _ := json.Marshal(map[string]string{"apiVersion": "v2", "name": filepath.Base(path), "version": version})
	layer := push("application/vnd.cncf.helm.chart.content.v1.tar+gzip", archive)
	cfg := push("application/vnd.cncf.helm.config.v1+json", cfgJSON)
	desc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, "", oras.PackManifestOptions{
		Layers: []ocispec.Descriptor{layer}, ConfigDescriptor: &cfg,
		ManifestAnnotations: map[string]string{ocispec.AnnotationVersion: version, ocispec.AnnotationCreated: "2026-01-01T00:00:00Z"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Tag(ctx, desc, version); err != nil {
		t.Fatal(err)
	}
	return desc.Digest.String()
}

// mirror serves the charts under oci://ghcr.io/<path> from a loopback registry through a
// real fetch.Fetcher: the reference, host check and pull by tag are the user's path.
type mirror struct {
	f     *fetch.Fetcher
	host  string
	paths map[string]bool
}

func (m mirror) Fetch(ctx context.Context, ref fetch.Ref) (*fetch.Chart, error) {
	p, ok := strings.CutPrefix(ref.URL, "oci://ghcr.io/")
	if !ok || !m.paths[p] {
		return nil, errors.New("not served by the test registry")
	}
	ref.URL = "oci://" + m.host + "/" + p
	return m.f.Fetch(ctx, ref)
}

const appTemplate = `{{- range $name, $c := .Values.controllers }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $.Release.Name }}{{ if ne $name $.Release.Name }}-{{ $name }}{{ end }}
spec:
  template:
    spec:
      containers:
{{- range $cn, $ct := $c.containers }}
        - name: {{ $cn }}
          image: {{ with $ct.image }}{{ .repository }}:{{ .tag }}{{ end }}
{{- end }}
{{- end }}
`

const ksmRules = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-ksm
data:
  first: {{ index (index .Values "kube-state-metrics" "rbac" "extraRules") 0 "apiGroups" | first | quote }}
`

// TestCorpusChartsFromRegistry renders onedr0p-home-ops with ghcr.io allowed, the charts
// app-template 5.1.0 and kube-prometheus-stack 88.3.0 served (charts of this test, under
// the corpus' references) by a loopback registry: the 25 app-template HelmReleases and
// kube-prometheus-stack render with the corpus' values, valuesFrom its ConfigMap included.
func TestCorpusChartsFromRegistry(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a corpus repository")
	}
	bundle := "../../../shared/corpus/onedr0p-home-ops.bundle"
	if _, err := os.Stat(bundle); err != nil {
		t.Skip("no shared corpus")
	}
	dir := filepath.Join(t.TempDir(), "repo")
	if out, err := exec.Command("git", "clone", "-q", "-b", "main", bundle, dir).CombinedOutput(); err != nil {
		t.Fatalf("clone: %v: %s", err, out)
	}
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	pushTestChart(t, u.Host, "bjw-s-labs/helm/app-template", "5.1.0", testChart(t, "app-template", "5.1.0", map[string]string{"controllers.yaml": appTemplate}))
	pushTestChart(t, u.Host, "prometheus-community/charts/kube-prometheus-stack", "88.3.0",
		testChart(t, "kube-prometheus-stack", "88.3.0", map[string]string{"ksm.yaml": ksmRules}))
	cfg, err := config.Load("../../docs/corpus/onedr0p-home-ops.tiergate.yaml", false)
	if err != nil {
		t.Fatal(err)
	}
	m := mirror{f: fetch.New(fetch.Policy{Allow: []string{"127.0.0.1"}, Loopback: true}), host: u.Host,
		paths: map[string]bool{"bjw-s-labs/helm/app-template": true, "prometheus-community/charts/kube-prometheus-stack": true}}
	g, err := Render(context.Background(), dir, Options{Config: cfg, SourceIgnore: true, Remote: RemotePolicy{Allow: []string{"ghcr.io"}}, Charts: m})
	if err != nil {
		t.Fatal(err)
	}
	rendered := map[string]int{}
	var errs []string
	skipped := map[string]int{}
	for _, c := range g.Clusters {
		for _, ks := range c.Kustomizations {
			for _, r := range ks.Releases {
				rendered[r.Chart]++
			}
			for _, e := range ks.HelmReleaseErrors {
				errs = append(errs, e.Err.Error())
			}
			for _, s := range ks.HelmReleaseSkipped {
				switch {
				case s.Host == "ghcr.io" && strings.HasSuffix(s.Reason, "could not be pulled: not served by the test registry"):
					skipped["ghcr.io, not served"]++
				case s.Host != "ghcr.io" && strings.HasSuffix(s.Reason, "is remote (allow "+s.Host+" to render it)"):
					skipped["other hosts, not allowed"]++
				default:
					errs = append(errs, s.Reason)
				}
			}
		}
	}
	want := map[string]int{"oci://ghcr.io/bjw-s-labs/helm/app-template:5.1.0": 25, "oci://ghcr.io/prometheus-community/charts/kube-prometheus-stack:88.3.0": 1}
	if d := cmp.Diff(want, rendered); d != "" {
		t.Errorf("rendered charts (-want +got):\n%s", d)
	}
	// 67 HelmReleases: 58 on ghcr.io, of which 26 are served.
	if d := cmp.Diff(map[string]int{"ghcr.io, not served": 32, "other hosts, not allowed": 9}, skipped); d != "" || len(errs) > 0 {
		t.Errorf("not rendered (-want +got):\n%s\nunexpected: %s", d, strings.Join(errs, "\n"))
	}
	c := g.Clusters[0]
	image := func(id graph.ObjectID) any {
		objs := c.Owners[id]
		if len(objs) == 0 {
			return nil
		}
		v, _, _ := unstructured.NestedSlice(objs[0].Body.Object, "spec", "template", "spec", "containers")
		return []any{objs[0].HelmRelease, v}
	}
	got := image(graph.ObjectID{Group: "apps", Kind: "Deployment", Namespace: "default", Name: "atuin"})
	wantAtuin := []any{"default/atuin", []any{map[string]any{"name": "app",
		"image": "ghcr.io/atuinsh/atuin:18.19.0@sha256:4d0ccca1d151f860b3f469c60df78bf1ab798f15e88dc1912d31d6741653eb99"}}}
	if d := cmp.Diff(wantAtuin, got); d != "" {
		t.Errorf("atuin Deployment (-want +got):\n%s", d)
	}
	ksm := c.Owners[graph.ObjectID{Kind: "ConfigMap", Namespace: "o11y", Name: "kube-prometheus-stack-ksm"}]
	if len(ksm) != 1 || ksm[0].Body.Object["data"].(map[string]any)["first"] != "source.toolkit.fluxcd.io" {
		t.Errorf("kube-prometheus-stack's valuesFrom did not reach the chart: %v", ksm)
	}
}

// TestOCIRepositoryChartRevision: a chart pulled for an OCIRepository gets the manifest
// digest in its version, and a semver tag that differs from Chart.yaml's version fails the
// release (helm-controller mutateChartWithSourceRevision).
func TestOCIRepositoryChartRevision(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	cm := map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  chart: {{ .Chart.Version | quote }}\n"}
	good := pushTestChart(t, u.Host, "charts/app", "1.0.0", testChart(t, "app", "1.0.0", cm))
	pushTestChart(t, u.Host, "charts/app", "1.0.1", testChart(t, "app", "0.9.0", cm))
	oci := func(name, tag string) string {
		return "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: " + name + "\n  namespace: apps\nspec:\n  url: oci://" + u.Host + "/charts/app\n  ref: {tag: " + tag + "}\n---\n" +
			hr(name, "chartRef: {kind: OCIRepository, name: "+name+"}")
	}
	files := merge(bootstrap("dev"), map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"), "apps/good.yaml": oci("good", "1.0.0"), "apps/bad.yaml": oci("bad", "1.0.1")})
	f := fetch.New(fetch.Policy{Allow: []string{"127.0.0.1"}, Loopback: true})
	g, err := Render(context.Background(), tree(t, files), Options{Remote: RemotePolicy{Allow: []string{"127.0.0.1"}}, Charts: f})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Clusters[0]
	version := "1.0.0+" + strings.TrimPrefix(good, "sha256:")[:12]
	ref := "oci://" + u.Host + "/charts/app:"
	want := releaseView{
		Objects: []string{"ConfigMap/apps/good app/templates/cm.yaml apps/good apps/good.yaml:11"},
		Charts:  []string{"good " + ref + "1.0.0 " + version},
		Errors:  []string{"apps/bad.yaml:11: artifact revision 1.0.1 does not match chart version 0.9.0"},
	}
	if d := cmp.Diff(want, viewReleases(c, graph.Ref{Namespace: "flux-system", Name: "apps"})); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got := c.Owners[graph.ObjectID{Kind: "ConfigMap", Namespace: "apps", Name: "good"}][0].Body.Object["data"]; !cmp.Equal(got, map[string]any{"chart": version}) {
		t.Errorf("the chart sees version %v, want %s", got, version)
	}
}
