package render

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm"
	"github.com/tiergate/tiergate/internal/render/helm/fetch"
	"github.com/tiergate/tiergate/internal/render/helmrelease"
)

// hr is a HelmRelease of namespace apps with the given spec lines.
func hr(name string, spec ...string) string {
	out := "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: " + name + "\n  namespace: apps\nspec:\n  interval: 1h\n"
	for _, l := range spec {
		out += "  " + l + "\n"
	}
	return out
}

const gitChart = "chart:\n    spec:\n      chart: ./charts/web\n      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}"

// webChart is an in-repo chart: a template of each scope, a CRD in crds/, a vendored
// dependency, a file .helmignore drops and a values file.
func webChart() map[string]string {
	return map[string]string{
		"charts/web/Chart.yaml":                   "apiVersion: v2\nname: web\nversion: 1.2.3\ndependencies:\n  - {name: lib, version: 0.1.0, repository: https://charts.example.invalid}\n",
		"charts/web/values.yaml":                  "replicas: 1\nport: 80\n",
		"charts/web/.helmignore":                  "ignored/\n",
		"charts/web/ignored/x.yaml":               "not: a template\n",
		"charts/web/values-prod.yaml":             "port: 8080\n",
		"charts/web/templates/_helpers.tpl":       "{{- define \"web.name\" -}}{{ .Release.Name }}-web{{- end }}\n",
		"charts/web/templates/deploy.yaml":        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include \"web.name\" . }}\nspec:\n  replicas: {{ .Values.replicas }}\n  template:\n    spec:\n      containers:\n        - name: web\n          env:\n            - name: TOKEN\n              value: {{ .Values.token | default \"none\" | quote }}\n          ports:\n            - containerPort: {{ .Values.port }}\n",
		"charts/web/templates/role.yaml":          "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {{ include \"web.name\" . }}\n",
		"charts/web/templates/widget.yaml":        "{{- if .Capabilities.APIVersions.Has \"example.com/v1/Widget\" }}\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n{{- end }}\n",
		"charts/web/crds/gadgets.yaml":            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gadgets.example.com\nspec:\n  group: example.com\n  names: {kind: Gadget, plural: gadgets}\n  scope: Cluster\n  versions: [{name: v1, served: true, storage: true}]\n",
		"charts/web/charts/lib/Chart.yaml":        "apiVersion: v2\nname: lib\nversion: 0.1.0\n",
		"charts/web/charts/lib/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-lib\n",
	}
}

func helmTree(t *testing.T, extra map[string]string) *graph.Cluster {
	t.Helper()
	files := merge(bootstrap("dev"), webChart(), map[string]string{
		"clusters/dev/apps.yaml": ks("apps", "./apps"),
	}, extra)
	g, err := Render(context.Background(), tree(t, files), Options{Config: &config.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	return g.Clusters[0]
}

// releaseView is what a test compares of a Kustomization's HelmReleases.
type releaseView struct {
	Objects []string // "id template"
	Charts  []string // "hr chart version"
	Skipped []string
	Errors  []string
}

func viewReleases(c *graph.Cluster, ref graph.Ref) releaseView {
	ks := c.Kustomizations[ref]
	var v releaseView
	for _, o := range ks.Objects {
		if o.HelmRelease != "" {
			v.Objects = append(v.Objects, o.ID.String()+" "+o.Template+" "+o.HelmRelease+" "+o.File+":"+itoa(o.Line))
		}
	}
	sort.Strings(v.Objects)
	for _, r := range ks.Releases {
		v.Charts = append(v.Charts, r.HelmRelease.Name+" "+r.Chart+" "+r.Version)
	}
	for _, s := range ks.HelmReleaseSkipped {
		v.Skipped = append(v.Skipped, s.Reason)
	}
	for _, e := range ks.HelmReleaseErrors {
		v.Errors = append(v.Errors, e.Err.Error())
	}
	return v
}

// TestHelmReleaseInRepoChart renders a GitRepository path chart from the snapshot:
// namespaced objects land in the release namespace, cluster-scoped ones stay without one,
// the dependency under charts/ renders, .helmignore is honoured, valuesFiles replace
// values.yaml, and the template that needs a CRD's API version renders once the graph has it.
func TestHelmReleaseInRepoChart(t *testing.T) {
	c := helmTree(t, map[string]string{
		"apps/web.yaml": hr("web", strings.Replace(gitChart, "chart: ./charts/web", "chart: ./charts/web\n      valuesFiles: [charts/web/values-prod.yaml]", 1),
			"targetNamespace: web", "values: {replicas: 2}"),
		"apps/crd.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n  scope: Namespaced\n  versions: [{name: v1, served: true, storage: true}]\n",
	})
	got := viewReleases(c, graph.Ref{Namespace: "flux-system", Name: "apps"})
	want := releaseView{
		Objects: []string{
			"ClusterRole.rbac.authorization.k8s.io/web-web-web web/templates/role.yaml apps/web apps/web.yaml:2",
			"ConfigMap/web/web-web-lib web/charts/lib/templates/cm.yaml apps/web apps/web.yaml:2",
			"CustomResourceDefinition.apiextensions.k8s.io/gadgets.example.com web/crds/gadgets.yaml apps/web apps/web.yaml:2",
			"Deployment.apps/web/web-web-web web/templates/deploy.yaml apps/web apps/web.yaml:2",
			"Widget.example.com/web/w web/templates/widget.yaml apps/web apps/web.yaml:2",
		},
		Charts: []string{"web charts/web 1.2.3"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	dep := c.Owners[graph.ObjectID{Group: "apps", Kind: "Deployment", Namespace: "web", Name: "web-web-web"}][0]
	port, _, _ := unstructuredField(dep.Body.Object, "spec", "template", "spec", "containers")
	if d := cmp.Diff([]any{map[string]any{"name": "web", "env": []any{map[string]any{"name": "TOKEN", "value": "none"}},
		"ports": []any{map[string]any{"containerPort": int64(8080)}}}}, port); d != "" {
		t.Errorf("valuesFiles and values (-want +got):\n%s", d)
	}
}

// TestHelmReleaseNotRendered covers the HelmReleases whose charts are not rendered, and why.
func TestHelmReleaseNotRendered(t *testing.T) {
	c := helmTree(t, map[string]string{
		"apps/oci.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: app-template\n  namespace: apps\nspec:\n  url: oci://ghcr.io/bjw-s-labs/helm/app-template\n  ref: {tag: 5.1.0}\n" +
			"---\n" + hr("echo", "chartRef: {kind: OCIRepository, name: app-template}"),
		"apps/repo.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: jetstack\n  namespace: apps\nspec:\n  url: https://charts.jetstack.io\n" +
			"---\n" + hr("cert-manager", "chart:\n    spec:\n      chart: cert-manager\n      version: 1.x\n      sourceRef: {kind: HelmRepository, name: jetstack}"),
		"apps/paused.yaml":                hr("paused", gitChart, "suspend: true"),
		"apps/values.yaml":                hr("values", gitChart, "valuesFrom:\n    - {kind: Secret, name: web-values}"),
		"apps/missing.yaml":               hr("missing", "chartRef: {kind: OCIRepository, name: nowhere}"),
		"apps/remote-dep.yaml":            hr("remote-dep", strings.Replace(gitChart, "./charts/web", "./charts/lonely", 1)),
		"charts/lonely/Chart.yaml":        "apiVersion: v2\nname: lonely\nversion: 0.1.0\ndependencies:\n  - {name: redis, version: 18.0.0, repository: oci://registry-1.docker.io/bitnamicharts}\n",
		"charts/lonely/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
		"apps/broken.yaml":                hr("broken", strings.Replace(gitChart, "./charts/web", "./charts/broken", 1)),
		"charts/broken/Chart.yaml":        "apiVersion: v2\nname: broken\nversion: 0.1.0\n",
		"charts/broken/templates/cm.yaml": "{{ fail \"broken on purpose\" }}\n",
	})
	got := viewReleases(c, graph.Ref{Namespace: "flux-system", Name: "apps"})
	want := releaseView{
		Skipped: []string{
			"HelmRelease apps/missing (apps/missing.yaml:2) not rendered: chartRef OCIRepository/apps/nowhere is not in the cluster's graph",
			"HelmRelease apps/echo (apps/oci.yaml:11) not rendered: chart oci://ghcr.io/bjw-s-labs/helm/app-template:5.1.0 is remote (allow ghcr.io and pkg-containers.githubusercontent.com to render it)",
			"HelmRelease apps/paused (apps/paused.yaml:2) is suspended: helm-controller does not reconcile it, so its chart is not rendered",
			"HelmRelease apps/remote-dep (apps/remote-dep.yaml:2) not rendered: chart charts/lonely depends on redis 18.0.0 from oci://registry-1.docker.io/bitnamicharts, which is not vendored under charts/: source-controller downloads it",
			"HelmRelease apps/cert-manager (apps/repo.yaml:10) not rendered: chart https://charts.jetstack.io cert-manager (semver 1.x) is remote (allow charts.jetstack.io to render it)",
			"HelmRelease apps/values (apps/values.yaml:2) not rendered: valuesFrom Secret apps/web-values is not in the cluster's graph (made at runtime or out of band), so its values are unknown",
		},
		Errors: []string{"apps/broken.yaml:2: render HelmRelease apps/broken (chart broken 0.1.0): execution error at (broken/templates/cm.yaml:1:3): broken on purpose"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestHelmReleaseSecretValues: values from a valuesFrom Secret are recorded so that review
// redacts them in the rendered objects.
func TestHelmReleaseSecretValues(t *testing.T) {
	c := helmTree(t, map[string]string{
		"apps/web.yaml":    hr("web", gitChart, "valuesFrom:\n    - {kind: Secret, name: web-values}"),
		"apps/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: web-values\n  namespace: apps\nstringData:\n  values.yaml: |\n    token: s3cr3t-token\n",
	})
	dep := c.Owners[graph.ObjectID{Group: "apps", Kind: "Deployment", Namespace: "apps", Name: "web-web"}]
	if len(dep) != 1 {
		t.Fatalf("Deployment not rendered: %+v", viewReleases(c, graph.Ref{Namespace: "flux-system", Name: "apps"}))
	}
	if d := cmp.Diff([]string{"token: s3cr3t-token", "s3cr3t-token"}, dep[0].SecretValues); d != "" {
		t.Errorf("SecretValues (-want +got):\n%s", d)
	}
	// The chart sees a placeholder: neither the value nor what a template derives from it
	// (upper, b64enc) can reach the output.
	env, _, _ := unstructured.NestedSlice(dep[0].Body.Object, "spec", "template", "spec", "containers")
	got := env[0].(map[string]any)["env"].([]any)[0].(map[string]any)["value"]
	if want := helmrelease.SecretPlaceholder("s3cr3t-token"); got != want || !strings.HasPrefix(want, "tiergate-redacted-") || len(want) != len("tiergate-redacted-")+8 {
		t.Errorf("TOKEN = %v, want the placeholder %s", got, want)
	}
	rel := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].Releases[0]
	if d := cmp.Diff([]string{"valuesFrom Secret values replaced by placeholders"}, rel.Approximate); d != "" {
		t.Errorf("Approximate (-want +got):\n%s", d)
	}
}

// countingHelm counts renders, to check the Cache.
type countingHelm struct{ n int }

func (c *countingHelm) Render(ctx context.Context, req helm.Request) (*helm.Result, error) {
	c.n++
	return helm.Render(ctx, req)
}

// TestHelmRenderCache: the second render of the same tree (a review's head after its base)
// reuses the chart's output; a value change renders again.
func TestHelmRenderCache(t *testing.T) {
	files := merge(bootstrap("dev"), webChart(), map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"), "apps/web.yaml": hr("web", gitChart)})
	cache := NewCache(0)
	h := &countingHelm{}
	for _, f := range []map[string]string{files, files, merge(files, map[string]string{"apps/web.yaml": hr("web", gitChart, "values: {replicas: 3}")})} {
		src, err := fsys.ReadSource(tree(t, f), graph.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := RenderSource(context.Background(), src, Options{Cache: cache, Helm: h}); err != nil {
			t.Fatal(err)
		}
	}
	if h.n != 2 {
		t.Errorf("%d renders, want 2 (the second tree reuses the first's)", h.n)
	}
}

func unstructuredField(obj map[string]any, fields ...string) (any, bool, error) {
	return unstructured.NestedFieldCopy(obj, fields...)
}

// refusingFetcher fails the test when called.
type refusingFetcher struct{ t *testing.T }

func (f refusingFetcher) Fetch(context.Context, fetch.Ref) (*fetch.Chart, error) {
	f.t.Error("a chart was fetched")
	return nil, errors.New("not reached")
}

// TestHelmReleaseRemoteFork: a fork's pull request fetches no chart, whatever is allowed.
func TestHelmReleaseRemoteFork(t *testing.T) {
	files := merge(bootstrap("dev"), map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"),
		"apps/oci.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: app-template\n  namespace: apps\nspec:\n  url: oci://ghcr.io/bjw-s-labs/helm/app-template\n  ref: {semver: '>=5.0.0'}\n" +
			"---\n" + hr("echo", "chartRef: {kind: OCIRepository, name: app-template}")})
	g, err := Render(context.Background(), tree(t, files), Options{Remote: RemotePolicy{Allow: []string{"ghcr.io"}, Fork: true}, Charts: refusingFetcher{t}})
	if err != nil {
		t.Fatal(err)
	}
	got := viewReleases(g.Clusters[0], graph.Ref{Namespace: "flux-system", Name: "apps"})
	want := releaseView{Skipped: []string{"HelmRelease apps/echo (apps/oci.yaml:11) not rendered: chart oci://ghcr.io/bjw-s-labs/helm/app-template (semver >=5.0.0) is remote, and nothing remote is fetched for a pull request from a fork"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestHelmReleaseOutputCap: a chart's output is capped as a build's is (--max-build-documents).
func TestHelmReleaseOutputCap(t *testing.T) {
	files := merge(bootstrap("dev"), map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"),
		"apps/many.yaml":                hr("many", strings.Replace(gitChart, "./charts/web", "./charts/many", 1)),
		"charts/many/Chart.yaml":        "apiVersion: v2\nname: many\nversion: 0.1.0\n",
		"charts/many/templates/cm.yaml": "{{- range until 20 }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-{{ . }}\n{{- end }}\n"})
	g, err := Render(context.Background(), tree(t, files), Options{Limits: graph.Limits{MaxBuildDocuments: 10}})
	if err != nil {
		t.Fatal(err)
	}
	apps := g.Clusters[0].Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if apps == nil || apps.Err != nil {
		t.Fatalf("Kustomization apps not built: %+v", apps)
	}
	want := []graph.ReleaseError{{HelmRelease: graph.ObjectID{Group: helmrelease.HelmGroup, Kind: "HelmRelease", Namespace: "apps", Name: "many"}, Chart: "charts/many", Err: graph.BuildError{
		Message: "not rendered: the chart renders 20 documents, more than tiergate's limit of 10 (--max-build-documents)", File: "apps/many.yaml", Line: 2, Limit: true}}}
	if d := cmp.Diff(want, apps.HelmReleaseErrors); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestReleaseObjectsScope: namespaced kinds without a namespace land in the release
// namespace; cluster-scoped ones stay without; an unknown kind is taken as namespaced and noted.
func TestReleaseObjectsScope(t *testing.T) {
	doc := func(apiVersion, kind, name string) helm.Doc {
		return helm.Doc{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name}}, Template: "t.yaml"}
	}
	res := &helm.Result{Docs: []helm.Doc{doc("v1", "ConfigMap", "a"), doc("v1", "Namespace", "b"), doc("example.org/v1", "Gizmo", "c"),
		doc("example.com/v1", "Gadget", "d"), doc("source.toolkit.fluxcd.io/v1", "OCIRepository", "e")}}
	hrObj := &graph.Object{ID: graph.ObjectID{Group: helmrelease.HelmGroup, Kind: "HelmRelease", Namespace: "apps", Name: "web"}, Owner: graph.Ref{Namespace: "flux-system", Name: "apps"}, File: "apps/web.yaml", Line: 2}
	sc := scopes{{Group: "example.com", Kind: "Gadget"}: false}
	objs, notes, err := releaseObjects(res, hrObj, "web", sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, o := range objs {
		ids = append(ids, o.ID.String())
	}
	if d := cmp.Diff([]string{"ConfigMap/web/a", "Namespace/b", "Gizmo.example.org/web/c", "Gadget.example.com/d", "OCIRepository.source.toolkit.fluxcd.io/web/e"}, ids); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"scope of Gizmo.example.org unknown: taken as namespaced"}, notes); d != "" {
		t.Errorf("notes (-want +got):\n%s", d)
	}
}

// TestHelmReleaseFailedKeepsPrior: a chart that fails at head (a required value) keeps the
// objects it rendered at the prior commit: helm-controller's upgrade fails and the installed
// release stays, so nothing of it is removed.
func TestHelmReleaseFailedKeepsPrior(t *testing.T) {
	files := merge(bootstrap("dev"), webChart(), map[string]string{
		"clusters/dev/apps.yaml": ks("apps", "./apps"),
		"apps/web.yaml":          hr("web", gitChart),
	})
	base, err := Render(context.Background(), tree(t, files), Options{Config: &config.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	files["charts/web/templates/role.yaml"] = "{{ required \"role.name must be set\" .Values.role }}\n"
	// A new version: under reconcileStrategy ChartVersion the cluster builds the new chart only then.
	files["charts/web/Chart.yaml"] = strings.Replace(files["charts/web/Chart.yaml"], "version: 1.2.3", "version: 1.2.4", 1)
	head, err := Render(context.Background(), tree(t, files), Options{Config: &config.Config{}, Prior: base})
	if err != nil {
		t.Fatal(err)
	}
	ref := graph.Ref{Namespace: "flux-system", Name: "apps"}
	want := viewReleases(base.Clusters[0], ref).Objects
	got := viewReleases(head.Clusters[0], ref)
	if d := cmp.Diff(want, got.Objects); d != "" || len(want) != 4 {
		t.Errorf("head objects (-prior +head):\n%s", d)
	}
	if len(got.Errors) != 1 || !strings.Contains(got.Errors[0], "role.name must be set") {
		t.Errorf("errors %q, want the required value's", got.Errors)
	}
	none, err := Render(context.Background(), tree(t, files), Options{Config: &config.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	if objs := viewReleases(none.Clusters[0], ref).Objects; len(objs) != 0 {
		t.Errorf("without a prior the failed release renders nothing, got %q", objs)
	}
}

// TestHelmReleaseCreateNamespace: install.createNamespace's Namespace is the release's only
// when nothing else in the cluster emits it; Helm leaves an existing one alone.
func TestHelmReleaseCreateNamespace(t *testing.T) {
	web := hr("web", gitChart, "targetNamespace: web", "install: {createNamespace: true}")
	for _, tc := range []struct {
		name   string
		extra  map[string]string
		owners []string
	}{
		{"alone", map[string]string{"apps/web.yaml": web}, []string{"flux-system/apps apps/web"}},
		{"emitted", map[string]string{"apps/web.yaml": web,
			"apps/ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: web\n"}, []string{"flux-system/apps "}},
	} {
		c := helmTree(t, tc.extra)
		var got []string
		for _, o := range c.Owners[graph.ObjectID{Kind: "Namespace", Name: "web"}] {
			got = append(got, o.Owner.String()+" "+o.HelmRelease)
		}
		if d := cmp.Diff(tc.owners, got); d != "" {
			t.Errorf("%s: owners of Namespace/web (-want +got):\n%s", tc.name, d)
		}
	}
}

// TestHelmReleaseOwnCRDScope: a kind whose CRD the release itself installs (crds/ here,
// scope Cluster) takes that scope: no namespace, no "scope unknown" note.
func TestHelmReleaseOwnCRDScope(t *testing.T) {
	c := helmTree(t, map[string]string{
		"apps/web.yaml":                    hr("web", gitChart),
		"charts/web/templates/gadget.yaml": "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n",
	})
	ks := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if got := len(c.Owners[graph.ObjectID{Group: "example.com", Kind: "Gadget", Name: "g"}]); got != 1 {
		t.Errorf("Gadget/g (cluster-scoped) owners %d, want 1: %+v", got, viewReleases(c, ks.Ref))
	}
	if n := ks.Releases[0].Notes; len(n) != 0 {
		t.Errorf("notes %q, want none", n)
	}
}

// redirectingFetcher refuses the download as a Fetcher does when the registry redirects
// it to a host the policy does not allow.
type redirectingFetcher struct{}

func (redirectingFetcher) Fetch(context.Context, fetch.Ref) (*fetch.Chart, error) {
	return nil, fmt.Errorf("fetch chart: %w", &fetch.NotAllowedError{Host: "pkg-containers.githubusercontent.com", From: "ghcr.io"})
}

// TestHelmReleaseAllowHint: the allow hint names the hosts a pull needs: ghcr.io's blob
// host with ghcr.io when neither is allowed, only the blob host when it alone is refused,
// and no second host once it is allowed.
func TestHelmReleaseAllowHint(t *testing.T) {
	files := merge(bootstrap("dev"), map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"),
		"apps/oci.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: app-template\n  namespace: apps\nspec:\n  url: oci://ghcr.io/bjw-s-labs/helm/app-template\n  ref: {tag: 5.1.0}\n" +
			"---\n" + hr("echo", "chartRef: {kind: OCIRepository, name: app-template}")})
	const prefix = "HelmRelease apps/echo (apps/oci.yaml:11) not rendered: chart oci://ghcr.io/bjw-s-labs/helm/app-template:5.1.0 is remote"
	for _, tc := range []struct {
		name      string
		allow     []string
		charts    ChartFetcher
		reason    string
		host      string
		alsoAllow []string
	}{
		{"nothing allowed", []string{"github.com"}, refusingFetcher{t}, prefix + " (allow ghcr.io and pkg-containers.githubusercontent.com to render it)",
			"ghcr.io", []string{"pkg-containers.githubusercontent.com"}},
		{"blob host allowed", []string{"*.githubusercontent.com"}, refusingFetcher{t}, prefix + " (allow ghcr.io to render it)", "ghcr.io", nil},
		{"redirect refused", []string{"ghcr.io"}, redirectingFetcher{}, prefix + ": ghcr.io redirects its download to pkg-containers.githubusercontent.com (allow pkg-containers.githubusercontent.com to render it)",
			"pkg-containers.githubusercontent.com", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := Render(context.Background(), tree(t, files), Options{Remote: RemotePolicy{Allow: tc.allow}, Charts: tc.charts})
			if err != nil {
				t.Fatal(err)
			}
			skipped := g.Clusters[0].Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].HelmReleaseSkipped
			if len(skipped) != 1 {
				t.Fatalf("skipped = %+v, want one", skipped)
			}
			s := skipped[0]
			if d := cmp.Diff([]any{tc.reason, tc.host, tc.alsoAllow}, []any{s.Reason, s.Host, s.AlsoAllow}); d != "" {
				t.Errorf("reason, host, alsoAllow (-want +got):\n%s", d)
			}
		})
	}
}

// TestHelmReleaseOtherChartCRDScope: a kind whose CRD another release's chart installs
// (web's crds/ Gadget, scope Cluster) takes that scope in a second release too: no
// namespace, no "scope unknown" note (the two render in parallel, so the second is
// rendered again with the first's CRDs).
func TestHelmReleaseOtherChartCRDScope(t *testing.T) {
	c := helmTree(t, map[string]string{
		"apps/web.yaml":                        hr("web", gitChart),
		"apps/gadgets.yaml":                    hr("gadgets", "chart:\n    spec:\n      chart: ./charts/gadgets\n      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}"),
		"charts/gadgets/Chart.yaml":            "apiVersion: v2\nname: gadgets\nversion: 0.1.0\n",
		"charts/gadgets/templates/gadget.yaml": "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: from-gadgets\n",
	})
	ks := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if got := len(c.Owners[graph.ObjectID{Group: "example.com", Kind: "Gadget", Name: "from-gadgets"}]); got != 1 {
		t.Errorf("Gadget/from-gadgets (cluster-scoped) owners %d, want 1: %+v", got, viewReleases(c, ks.Ref))
	}
	for _, rel := range ks.Releases {
		if len(rel.Notes) != 0 {
			t.Errorf("%s notes %q, want none", rel.HelmRelease.Name, rel.Notes)
		}
	}
	if len(ks.Releases) != 2 {
		t.Errorf("%d releases rendered, want 2: %+v", len(ks.Releases), viewReleases(c, ks.Ref))
	}
}

// TestHelmReleaseValuesFromTaintedConfigMap: a ConfigMap key that postBuild substitution
// wrote from a Secret reaches the chart through valuesFrom (whole document, and valuesKey
// with targetPath) as a placeholder, as a valuesFrom Secret does, and a Secret value
// substituted into spec.postRenderers is a Secret field of the chart's objects (hostile2
// n-hrcm). A plain ConfigMap key beside it reaches the chart as it is.
func TestHelmReleaseValuesFromTaintedConfigMap(t *testing.T) {
	files := merge(bootstrap("dev"), webChart(), map[string]string{
		"clusters/dev/apps.yaml": ks("config", "./config") + "---\n" +
			ks("apps", "./apps", "dependsOn: [{name: config}]", "postBuild:", "  substituteFrom:", "    - {kind: Secret, name: cluster-secrets}"),
		"config/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: cluster-secrets, namespace: flux-system}\nstringData: {TOK: Zq8wLk3vPx, SH: kx7}\n",
		"apps/cm.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-vals, namespace: apps}\ndata:\n  values.yaml: |\n    token: ${TOK}\n  single: \"${TOK}\"\n  plain: \"7\"\n",
		"apps/web.yaml": hr("web", gitChart, "valuesFrom:",
			"    - {kind: ConfigMap, name: web-vals}",
			"    - {kind: ConfigMap, name: web-vals, valuesKey: single, targetPath: extra.tok}",
			"    - {kind: ConfigMap, name: web-vals, valuesKey: plain, targetPath: replicas}",
			"postRenderers:",
			"  - kustomize:",
			"      patches:",
			"        - target: {kind: Deployment}",
			"          patch: |",
			"            - {op: add, path: /metadata/labels, value: {pr: q-${SH}}}"),
	})
	g, err := Render(context.Background(), tree(t, files), Options{Config: &config.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Clusters[0]
	dep := c.Owners[graph.ObjectID{Group: "apps", Kind: "Deployment", Namespace: "apps", Name: "web-web"}]
	if len(dep) != 1 {
		t.Fatalf("Deployment not rendered: %+v", viewReleases(c, graph.Ref{Namespace: "flux-system", Name: "apps"}))
	}
	env, _, _ := unstructured.NestedSlice(dep[0].Body.Object, "spec", "template", "spec", "containers")
	if got, want := env[0].(map[string]any)["env"].([]any)[0].(map[string]any)["value"], helmrelease.SecretPlaceholder("Zq8wLk3vPx"); got != want {
		t.Errorf("TOKEN = %v, want the placeholder %s", got, want)
	}
	if got, _, _ := unstructured.NestedInt64(dep[0].Body.Object, "spec", "replicas"); got != 7 {
		t.Errorf("replicas = %d, want the plain ConfigMap's 7", got)
	}
	rel := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].Releases[0]
	if got, want := rel.Values["extra"], map[string]any{"tok": helmrelease.SecretPlaceholder("Zq8wLk3vPx")}; !cmp.Equal(got, want) {
		t.Errorf("values extra = %v, want %v", got, want)
	}
	if d := cmp.Diff([]string{"valuesFrom Secret values replaced by placeholders"}, rel.Approximate); d != "" {
		t.Errorf("Approximate (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"token: Zq8wLk3vPx", "Zq8wLk3vPx"}, dep[0].SecretValues); d != "" {
		t.Errorf("SecretValues (-want +got):\n%s", d)
	}
	want := []graph.SecretField{{Path: []string{"metadata", "labels", "pr"}, Parts: []graph.TextPart{{Text: "q-"}, {Text: "kx7", Secret: true}}}}
	if d := cmp.Diff(want, dep[0].SecretFields); d != "" {
		t.Errorf("SecretFields (-want +got):\n%s", d)
	}
}
