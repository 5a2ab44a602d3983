package helm

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const origin = "    helm.toolkit.fluxcd.io/name: web\n    helm.toolkit.fluxcd.io/namespace: flux-system\n"

// TestRender renders appChart as the HelmRelease flux-system/web with targetNamespace apps:
// release apps-web in apps, CRDs of enabled charts first with the origin labels (the stray
// ConfigMap of crds/ dropped), the manifest in Helm's install order, then the hook, every
// object post-rendered (combined).
func TestRender(t *testing.T) {
	crd := func(name, kind, file string) Doc {
		return Doc{Template: file, CRD: true, Object: obj(t, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: "+name+
			"\n  labels:\n"+origin+"spec:\n  group: example.com\n  names:\n    kind: "+kind+"\n    plural: "+strings.ToLower(kind)+"s\n  scope: Namespaced\n")}
	}
	widgets := crd("widgets.example.com", "Widget", "app/crds/widgets.yaml")
	gadgets := crd("gadgets.example.com", "Gadget", "app/charts/sub/crds/gadgets.yaml")
	subCM := Doc{Template: "app/charts/sub/templates/cm.yaml", Object: obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: apps-web-sub\n  labels:\n"+origin+"data:\n  greeting: hello\n")}
	svc := Doc{Template: "app/templates/svc.yaml", Object: obj(t, "apiVersion: v1\nkind: Service\nmetadata:\n  name: apps-web-app\n  namespace: apps\n  labels:\n"+origin+"spec:\n  ports:\n  - port: 80\n")}
	deploy := Doc{Template: "app/templates/deploy.yaml", Object: obj(t, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: apps-web-app
  labels:
    app.kubernetes.io/name: app
    helm.sh/chart: app-1.2.3
`+origin+`spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: app
        image: nginx:1.0
`)}
	hook := Doc{Template: "app/templates/hook.yaml", Hook: "pre-install,pre-upgrade", Object: obj(t, `apiVersion: batch/v1
kind: Job
metadata:
  name: apps-web-app-migrate
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
  labels:
`+origin+`spec:
  template:
    spec:
      containers:
      - name: migrate
        image: nginx:1.0
`)}
	for _, tc := range []struct {
		name, spec string
		values     map[string]any
		want       []Doc
		skipped    []string // Result.SkippedCRDs
	}{
		{"crds default to Create", "  targetNamespace: apps\n", map[string]any{"replicas": 2},
			[]Doc{widgets, gadgets, subCM, svc, deploy, hook}, nil},
		{"CreateReplace", "  targetNamespace: apps\n  install:\n    crds: CreateReplace\n", map[string]any{"replicas": 2},
			[]Doc{widgets, gadgets, subCM, svc, deploy, hook}, nil},
		{"Skip", "  targetNamespace: apps\n  install:\n    crds: Skip\n", map[string]any{"replicas": 2},
			[]Doc{subCM, svc, deploy, hook}, []string{"example.com/Gadget", "example.com/Widget"}},
		{"Skip with the subchart disabled skips the parent's CRDs only", "  targetNamespace: apps\n  install:\n    crds: Skip\n",
			map[string]any{"replicas": 2, "sub": map[string]any{"enabled": false}},
			[]Doc{svc, deploy, hook}, []string{"example.com/Widget"}},
		{"disabled subchart brings neither objects nor CRDs", "  targetNamespace: apps\n",
			map[string]any{"replicas": 2, "sub": map[string]any{"enabled": false}},
			[]Doc{widgets, svc, deploy, hook}, nil},
		{"createNamespace with targetNamespace", "  targetNamespace: apps\n  install:\n    createNamespace: true\n    crds: Skip\n", map[string]any{"replicas": 2},
			[]Doc{{Object: obj(t, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n  labels:\n    name: apps\n")}, subCM, svc, deploy, hook}, []string{"example.com/Gadget", "example.com/Widget"}},
		{"disableHooks", "  targetNamespace: apps\n  install:\n    disableHooks: true\n", map[string]any{"replicas": 2},
			[]Doc{widgets, gadgets, subCM, svc, deploy}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Render(context.Background(), Request{Chart: loadChart(t, appChart()), HelmRelease: hrObj(t, tc.spec), Values: tc.values})
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if diff := cmp.Diff(&Result{Docs: tc.want, SkippedCRDs: tc.skipped}, res); diff != "" {
				t.Errorf("Render (-want +got):\n%s", diff)
			}
		})
	}
}

// brief is what the post-render tests compare: a doc's kind/name, hook, labels,
// annotations and the first container's image.
func brief(res *Result) []string {
	var out []string
	for _, d := range res.Docs {
		meta, _ := d.Object["metadata"].(map[string]any)
		s := fmt.Sprintf("%s/%s hook=%q labels=%v annotations=%v", d.Object["kind"], meta["name"], d.Hook, meta["labels"], meta["annotations"])
		if spec, ok := d.Object["spec"].(map[string]any); ok {
			if tpl, ok := spec["template"].(map[string]any); ok {
				cs := tpl["spec"].(map[string]any)["containers"].([]any)
				s += fmt.Sprintf(" image=%v", cs[0].(map[string]any)["image"])
			}
			if r, ok := spec["replicas"]; ok {
				s += fmt.Sprintf(" replicas=%v", r)
			}
		}
		out = append(out, s)
	}
	return out
}

func TestRenderPostRenderers(t *testing.T) {
	const patches = `  postRenderers:
  - kustomize:
      patches:
      - target:
          kind: Deployment
        patch: |
          apiVersion: apps/v1
          kind: Deployment
          metadata:
            name: ignored
          spec:
            replicas: 5
      - target:
          kind: Service
          name: web-app
        patch: |
          - op: add
            path: /metadata/annotations
            value: {patched: json6902}
      images:
      - name: nginx
        newName: registry.example/nginx
        newTag: "1.1"
`
	const common = "  commonMetadata:\n    labels:\n      team: web\n      helm.toolkit.fluxcd.io/name: spoofed\n    annotations:\n      owner: team-web\n"
	noSub := map[string]any{"sub": map[string]any{"enabled": false}}
	for _, tc := range []struct {
		name, spec string
		want       []string
	}{
		{"strategic merge and JSON6902 patches, images", patches, []string{
			"CustomResourceDefinition/widgets.example.com hook=\"\" labels=map[helm.toolkit.fluxcd.io/name:web helm.toolkit.fluxcd.io/namespace:flux-system] annotations=<nil>",
			"Service/web-app hook=\"\" labels=map[helm.toolkit.fluxcd.io/name:web helm.toolkit.fluxcd.io/namespace:flux-system] annotations=map[patched:json6902]",
			"Deployment/web-app hook=\"\" labels=map[app.kubernetes.io/name:app helm.sh/chart:app-1.2.3 helm.toolkit.fluxcd.io/name:web helm.toolkit.fluxcd.io/namespace:flux-system] annotations=<nil> image=registry.example/nginx:1.1 replicas=5",
			"Job/web-app-migrate hook=\"pre-install,pre-upgrade\" labels=map[helm.toolkit.fluxcd.io/name:web helm.toolkit.fluxcd.io/namespace:flux-system] annotations=map[helm.sh/hook:pre-install,pre-upgrade] image=registry.example/nginx:1.1",
		}},
		// commonMetadata reaches hooks under combined; the origin label wins over a common
		// label of the same key (BuildPostRenderers runs it last); CRDs get origin labels only.
		{"commonMetadata, combined", common, []string{
			"CustomResourceDefinition/widgets.example.com hook=\"\" labels=map[helm.toolkit.fluxcd.io/name:web helm.toolkit.fluxcd.io/namespace:flux-system] annotations=<nil>",
			"Service/web-app hook=\"\" labels=map[helm.toolkit.fluxcd.io/name:web helm.toolkit.fluxcd.io/namespace:flux-system team:web] annotations=map[owner:team-web]",
			"Deployment/web-app hook=\"\" labels=map[app.kubernetes.io/name:app helm.sh/chart:app-1.2.3 helm.toolkit.fluxcd.io/name:web helm.toolkit.fluxcd.io/namespace:flux-system team:web] annotations=map[owner:team-web] image=nginx:1.0 replicas=1",
			"Job/web-app-migrate hook=\"pre-install,pre-upgrade\" labels=map[helm.toolkit.fluxcd.io/name:web helm.toolkit.fluxcd.io/namespace:flux-system team:web] annotations=map[helm.sh/hook:pre-install,pre-upgrade owner:team-web] image=nginx:1.0",
		}},
		// nohooks: hooks skip the post-renderers, origin labels included.
		{"commonMetadata, nohooks", common + "  postRenderStrategy: nohooks\n", []string{
			"CustomResourceDefinition/widgets.example.com hook=\"\" labels=map[helm.toolkit.fluxcd.io/name:web helm.toolkit.fluxcd.io/namespace:flux-system] annotations=<nil>",
			"Service/web-app hook=\"\" labels=map[helm.toolkit.fluxcd.io/name:web helm.toolkit.fluxcd.io/namespace:flux-system team:web] annotations=map[owner:team-web]",
			"Deployment/web-app hook=\"\" labels=map[app.kubernetes.io/name:app helm.sh/chart:app-1.2.3 helm.toolkit.fluxcd.io/name:web helm.toolkit.fluxcd.io/namespace:flux-system team:web] annotations=map[owner:team-web] image=nginx:1.0 replicas=1",
			"Job/web-app-migrate hook=\"pre-install,pre-upgrade\" labels=<nil> annotations=map[helm.sh/hook:pre-install,pre-upgrade] image=nginx:1.0",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Render(context.Background(), Request{Chart: loadChart(t, appChart()), HelmRelease: hrObj(t, tc.spec), Values: noSub})
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if diff := cmp.Diff(tc.want, brief(res)); diff != "" {
				t.Errorf("Render (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRenderErrors: what fails in the cluster fails here, with the controller's message.
func TestRenderErrors(t *testing.T) {
	withFile := func(name, body string) map[string]string {
		files := appChart()
		files[name] = body
		return files
	}
	const hrErr = "render HelmRelease flux-system/web (chart app 1.2.3): "
	for _, tc := range []struct {
		name  string
		files map[string]string
		spec  string
		want  string
	}{
		// The always-on origin-label ResMap rejects what plain Helm accepts.
		{"duplicate ids", withFile("templates/svc2.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web-app\n  namespace: {{ .Release.Namespace }}\n"), "",
			hrErr + "error while running post render on files: may not add resource with an already registered id: Service.v1.[noGrp]/web-app.flux-system"},
		// A hook and a release object with one id: the merged stream of combined rejects it.
		{"hook and manifest duplicate under combined", withFile("templates/sa.yaml", saTwice), "",
			hrErr + "error while running post render on files: may not add resource with an already registered id: ServiceAccount.v1.[noGrp]/setup.[noNs]"},
		{"release name", appChart(), "  releaseName: Web_App\n", hrErr + "release name check failed: release name \"Web_App\": invalid release name, must match regex ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must not be longer than 53"},
		{"chart kubeVersion", withFile("Chart.yaml", "apiVersion: v2\nname: app\nversion: 1.2.3\nkubeVersion: '>=1.34.0-0'\n"), "",
			hrErr + "chart requires kubeVersion: >=1.34.0-0 which is incompatible with Kubernetes v1.33.0"},
		{"fail", withFile("templates/fail.yaml", `{{ fail "set .Values.host" }}`), "",
			hrErr + "execution error at (app/templates/fail.yaml:1:3): set .Values.host"},
		{"crds policy", appChart(), "  install:\n    crds: Always\n",
			hrErr + "spec.install.crds: invalid CRD upgrade policy 'Always', valid values are 'Skip', 'Create' or 'CreateReplace'"},
		{"mistyped spec field", appChart(), "  postRenderers: patch\n", hrErr + "spec.postRenderers cannot be a string"},
		{"mistyped nested field", appChart(), "  install:\n    disableHooks: \"yes\"\n", hrErr + "spec.install.disableHooks cannot be a string"},
		{"JSON6902 patch on a missing path", appChart(), "  postRenderers:\n  - kustomize:\n      patches:\n      - target: {kind: Service}\n        patch: '[{\"op\": \"replace\", \"path\": \"/spec/missing/x\", \"value\": 1}]'\n",
			hrErr + "error while running post render on files: replace operation does not apply: doc is missing path: /spec/missing/x: missing value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Render(context.Background(), Request{Chart: loadChart(t, tc.files), HelmRelease: hrObj(t, tc.spec)})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Render error:\n got %v\nwant %s", err, tc.want)
			}
		})
	}
}

// TestRenderPanic: a panic inside Helm (here a nil dependency entry, which dependency
// processing dereferences) is returned as an error.
func TestRenderPanic(t *testing.T) {
	c := loadChart(t, capsChart())
	c.Metadata.Dependencies = append(c.Metadata.Dependencies, nil)
	_, err := Render(context.Background(), Request{Chart: c, HelmRelease: hrObj(t, "  chart: {}\n")})
	const want = "render HelmRelease flux-system/web: chart caps panicked: runtime error: invalid memory address or nil pointer dereference"
	if err == nil || err.Error() != want {
		t.Fatalf("Render error:\n got %v\nwant %s", err, want)
	}
	if _, err := Render(context.Background(), Request{HelmRelease: hrObj(t, "")}); err == nil || err.Error() != "render: a chart and a HelmRelease are required" {
		t.Errorf("no chart: %v", err)
	}
}

// TestRenderCreateNamespaceNeedsTarget: newInstall honours install.createNamespace only
// with a targetNamespace.
func TestRenderCreateNamespaceNeedsTarget(t *testing.T) {
	res, err := Render(context.Background(), Request{Chart: loadChart(t, capsChart()), HelmRelease: hrObj(t, "  install:\n    createNamespace: true\n")})
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	var kinds []any
	for _, d := range res.Docs {
		kinds = append(kinds, d.Object["kind"])
	}
	if diff := cmp.Diff([]any{"HTTPRoute"}, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
}

const saTwice = `apiVersion: v1
kind: ServiceAccount
metadata:
  name: setup
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: setup
  annotations:
    helm.sh/hook: pre-install
`

// TestRenderSeparate: postRenderStrategy separate post-renders hooks and manifests as two
// streams, so a hook may repeat a release object's id, and both get the origin labels.
func TestRenderSeparate(t *testing.T) {
	files := appChart()
	files["templates/sa.yaml"] = saTwice
	res, err := Render(context.Background(), Request{Chart: loadChart(t, files), HelmRelease: hrObj(t, "  postRenderStrategy: separate\n  install:\n    crds: Skip\n"),
		Values: map[string]any{"sub": map[string]any{"enabled": false}}})
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	const labels = "labels=map[helm.toolkit.fluxcd.io/name:web helm.toolkit.fluxcd.io/namespace:flux-system]"
	want := []string{
		"ServiceAccount/setup hook=\"\" " + labels + " annotations=<nil>",
		"Service/web-app hook=\"\" " + labels + " annotations=<nil>",
		"Deployment/web-app hook=\"\" labels=map[app.kubernetes.io/name:app helm.sh/chart:app-1.2.3 helm.toolkit.fluxcd.io/name:web helm.toolkit.fluxcd.io/namespace:flux-system] annotations=<nil> image=nginx:1.0 replicas=1",
		"ServiceAccount/setup hook=\"pre-install\" " + labels + " annotations=map[helm.sh/hook:pre-install]",
		"Job/web-app-migrate hook=\"pre-install,pre-upgrade\" " + labels + " annotations=map[helm.sh/hook:pre-install,pre-upgrade] image=nginx:1.0",
	}
	if diff := cmp.Diff(want, brief(res)); diff != "" {
		t.Errorf("Render (-want +got):\n%s", diff)
	}
}

// TestRenderChartReused: one loaded chart rendered with the subchart disabled, then enabled,
// has it the second time (Helm's dependency processing drops disabled subcharts from the
// chart it is given).
func TestRenderChartReused(t *testing.T) {
	c := loadChart(t, appChart())
	count := func(values map[string]any) int {
		res, err := Render(context.Background(), Request{Chart: c, HelmRelease: hrObj(t, "  chart: {}\n"), Values: values})
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		return len(res.Docs)
	}
	got := []int{count(map[string]any{"sub": map[string]any{"enabled": false}}), count(nil)}
	if diff := cmp.Diff([]int{4, 6}, got); diff != "" {
		t.Errorf("docs per render (-want +got):\n%s", diff)
	}
}

// TestRenderPostRenderersKeepTemplate: a patch that replaces metadata.annotations drops
// Helm's postrender-filename annotation; the object still names its template.
func TestRenderPostRenderersKeepTemplate(t *testing.T) {
	const spec = `  postRenderers:
  - kustomize:
      patches:
      - target: {kind: Service}
        patch: |
          - op: replace
            path: /metadata/annotations
            value: {patched: json6902}
      - target: {kind: Job}
        patch: |
          - op: add
            path: /metadata/annotations
            value: {helm.sh/hook: pre-install}
      - patch: |
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: added-by-patch
        target: {kind: Nothing}
`
	noSub := map[string]any{"sub": map[string]any{"enabled": false}}
	res, err := Render(context.Background(), Request{Chart: loadChart(t, appChart()), HelmRelease: hrObj(t, spec), Values: noSub})
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	var got []string
	for _, d := range res.Docs {
		meta, _ := d.Object["metadata"].(map[string]any)
		got = append(got, fmt.Sprintf("%s/%s %s annotations=%v", d.Object["kind"], meta["name"], d.Template, meta["annotations"]))
	}
	want := []string{
		"CustomResourceDefinition/widgets.example.com app/crds/widgets.yaml annotations=<nil>",
		"Service/web-app app/templates/svc.yaml annotations=map[patched:json6902]",
		"Deployment/web-app app/templates/deploy.yaml annotations=<nil>",
		"Job/web-app-migrate app/templates/hook.yaml annotations=map[helm.sh/hook:pre-install]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
}

// TestRenderSeen: Request.Seen is what the templates see as .Release.Name and
// .Release.Namespace (placeholders where a Secret wrote the release's name), while the
// origin labels and the created Namespace stay the HelmRelease's; without Seen the
// templates see ReleaseOf.
func TestRenderSeen(t *testing.T) {
	files := map[string]string{
		"Chart.yaml":        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rel\ndata:\n  rn: {{ .Release.Name | upper }}\n  rns: {{ .Release.Namespace }}\n",
	}
	hr := hrObj(t, "  releaseName: real-name\n  targetNamespace: apps\n  install:\n    createNamespace: true\n")
	for _, tc := range []struct {
		name string
		seen *Release
		want []string
	}{
		{"seen", &Release{Name: "tiergate-redacted-0a1b2c3d", Namespace: "tiergate-redacted-4e5f6a7b"}, []string{
			"Namespace apps", "ConfigMap rel rn=TIERGATE-REDACTED-0A1B2C3D rns=tiergate-redacted-4e5f6a7b labels=map[helm.toolkit.fluxcd.io/name:web helm.toolkit.fluxcd.io/namespace:flux-system]"}},
		{"literal", nil, []string{
			"Namespace apps", "ConfigMap rel rn=REAL-NAME rns=apps labels=map[helm.toolkit.fluxcd.io/name:web helm.toolkit.fluxcd.io/namespace:flux-system]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Render(context.Background(), Request{Chart: loadChart(t, files), HelmRelease: hr, Seen: tc.seen})
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			var got []string
			for _, d := range res.Docs {
				u := unstructured.Unstructured{Object: d.Object}
				s := u.GetKind() + " " + u.GetName()
				if data, ok := d.Object["data"].(map[string]any); ok {
					s += fmt.Sprintf(" rn=%v rns=%v labels=%v", data["rn"], data["rns"], u.GetLabels())
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
