package rules

import (
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestInvalidSpec: HelmReleases that break their CRD's schema and built-in objects with a
// field of the wrong type are rejected by the API server; valid ones, custom resources
// and a Kustomization without path are not.
func TestInvalidSpec(t *testing.T) {
	tiers := map[string]string{tierFile("apps"): tier("apps", "./apps", true)}
	long := strings.Repeat("a", 54)
	web := func(replicas string) string {
		return obj("apps/v1", "Deployment", "default", "web", "spec:", "  replicas: "+replicas,
			"  selector: {matchLabels: {app: web}}", "  template:", "    metadata: {labels: {app: web}}",
			"    spec: {containers: [{name: app, image: nginx}]}")
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{
			name: "valid HelmRelease and Deployment, a custom resource, a Kustomization without path",
			files: merge(tiers, chart("app", map[string]string{"templates/cm.yaml": configMap("", "cm")}), map[string]string{
				"apps/hr.yaml":     helmRelease("default", "app", "app", "releaseName: "+long[:53], "values: {a: 1}", "install: {crds: CreateReplace}"),
				"apps/web.yaml":    web("3"),
				"apps/widget.yaml": obj("example.com/v1", "Widget", "default", "w", "spec: {replicas: three}"),
				"apps/crd.yaml":    crd("example.com", "Widget", "widgets", "Namespaced"),
				"apps/nopath.yaml": strings.Replace(tier("nopath", "./x", true), "  path: ./x\n", "", 1),
			}),
		},
		{
			name: "releaseName of 54 characters",
			files: merge(tiers, chart("app", map[string]string{"templates/cm.yaml": configMap("", "cm")}), map[string]string{
				"apps/hr.yaml": helmRelease("default", "app", "app", "releaseName: "+long),
			}),
			// The rejection fails the Kustomization's apply: render-error's finding
			// (TestRejectedHelmReleaseOneFinding), not a second one here.
		},
		{
			name: "interval garbage and values a list: both, at the first",
			files: merge(tiers, chart("app", map[string]string{"templates/cm.yaml": configMap("", "cm")}), map[string]string{
				"apps/hr.yaml": strings.Replace(helmRelease("default", "app", "app", "values: [a, b]"), "interval: 10m", "interval: garbage", 1),
			}),
			// render-error's, as above.
		},
		{
			name:  "a Deployment's replicas as a string",
			files: merge(tiers, map[string]string{"apps/web.yaml": web("three")}),
			want: []want{{Rule: "invalid-spec", Severity: Error, Kustomization: "flux-system/apps", Object: "Deployment.apps/default/web", File: "apps/web.yaml", Line: 7,
				Msg: []string{"Deployment.apps/default/web is rejected by the API server (the apps/v1 Deployment type): spec.replicas must be an integer, got a string; " +
					"kustomize-controller's dry-run of flux-system/apps fails and applies nothing on every reconcile."},
				Sugg: []string{"Fix spec.replicas at apps/web.yaml:7 so that the API server accepts the Deployment."}}},
		},
		{
			// The field comes from a patch of kustomization.yaml: fixed there.
			name: "a Deployment's replicas set to a string by a patch",
			files: merge(tiers, map[string]string{"apps/web.yaml": strings.Replace(web("3"), "  replicas: 3\n", "", 1),
				"apps/kustomization.yaml": "resources:\n  - web.yaml\npatches:\n  - target: {kind: Deployment, name: web}\n    patch: |\n      - op: add\n        path: /spec/replicas\n        value: three\n"}),
			want: []want{{Rule: "invalid-spec", Severity: Error, Kustomization: "flux-system/apps", Object: "Deployment.apps/default/web", File: "apps/kustomization.yaml", Line: 7,
				Msg:  []string{"Deployment.apps/default/web is rejected by the API server (the apps/v1 Deployment type): spec.replicas must be an integer, got a string; kustomize-controller's dry-run of flux-system/apps fails and applies nothing on every reconcile."},
				Sugg: []string{"Fix spec.replicas at apps/kustomization.yaml:7 so that the API server accepts the Deployment."}}},
		},
		{
			name: "a chart's Deployment with replicas as a string: at the HelmRelease",
			files: merge(tiers, chart("app", map[string]string{"templates/web.yaml": web(`"three"`)}), map[string]string{
				"apps/hr.yaml": helmRelease("default", "app", "app"),
			}),
			want: []want{{Rule: "invalid-spec", Severity: Error, Kustomization: "flux-system/apps", Object: "Deployment.apps/default/web", File: "apps/hr.yaml", Line: 2,
				Msg: []string{"Deployment.apps/default/web is rejected by the API server (the apps/v1 Deployment type): spec.replicas must be an integer, got a string; " +
					"helm-controller's install or upgrade of HelmRelease default/app fails (chart template app/templates/web.yaml) on every reconcile."},
				Sugg: []string{"Fix what the chart template app/templates/web.yaml renders (its values in HelmRelease default/app) so that spec.replicas is valid."}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, tc.files)
			checkFindings(t, stateRule(t, "invalid-spec")(c, nil, testEnv()), tc.want)
		})
	}
}

// TestRejectedHelmReleaseOneFinding: a HelmRelease of a Kustomization's build that its
// CRD's schema rejects fails the dry-run of that Kustomization: one cause, one finding,
// render-error's, naming the HelmRelease, its fields and lines; invalid-spec stays silent.
// A chart's object the API server rejects stays invalid-spec's (its Kustomization applies).
func TestRejectedHelmReleaseOneFinding(t *testing.T) {
	tiers := map[string]string{tierFile("apps"): tier("apps", "./apps", true)}
	cm := chart("app", map[string]string{"templates/cm.yaml": configMap("", "cm")})
	noInterval := strings.Replace(helmRelease("default", "app", "app"), "  interval: 10m\n", "", 1)
	for _, tc := range []struct {
		name, hr, msg string
		line          int
	}{
		{"no interval", noInterval, "Kustomization flux-system/apps fails to apply, so Flux applies none of it: the API server rejects HelmRelease default/app: spec.interval: is required (apps/hr.yaml:6).", 6},
		{"interval garbage and values a list", strings.Replace(helmRelease("default", "app", "app", "values: [a, b]"), "interval: 10m", "interval: garbage", 1),
			`Kustomization flux-system/apps fails to apply, so Flux applies none of it: the API server rejects HelmRelease default/app: spec.interval: "garbage" is not a duration such as 30s, 5m or 1h30m (the schema's pattern ^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$); spec.values: must be an object, got a list (apps/hr.yaml:7).`, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := renderTree(t, merge(tiers, cm, map[string]string{"apps/hr.yaml": tc.hr}))
			var got []Finding
			for _, r := range State {
				got = append(got, r.Check(c, nil, testEnv())...)
			}
			checkFindings(t, got, []want{{Rule: "render-error", Severity: Error, Kustomization: "flux-system/apps", File: "apps/hr.yaml", Line: tc.line, Msg: []string{tc.msg},
				Sugg: []string{"Fix apps/hr.yaml:" + strconv.Itoa(tc.line) + " so that the API server accepts the HelmRelease (helm.toolkit.fluxcd.io/v2 schema: spec.interval and a chart or chartRef are required)."}}})
			if got[0].Message != tc.msg {
				t.Errorf("message = %q, want %q", got[0].Message, tc.msg)
			}
		})
	}
}

// BenchmarkInvalidSpec: invalid-spec alone and every state rule, on 2,000 Kustomizations of
// one ConfigMap and one Deployment each (docs/performance.md): the share of a review's rule
// time that decoding every built-in object into its k8s.io/api type costs.
func BenchmarkInvalidSpec(b *testing.B) {
	c := shapeCluster("none", 2000)
	for _, ref := range c.Order[1:] {
		ks := c.Kustomizations[ref]
		name := "d" + ref.Name
		o := &graph.Object{ID: graph.ObjectID{Group: "apps", Kind: "Deployment", Namespace: "default", Name: name}, Owner: ref, File: "apps/" + ref.Name + "/web.yaml", Line: 1,
			Body: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"name": name, "namespace": "default"},
				"spec": map[string]any{"replicas": int64(2), "selector": map[string]any{"matchLabels": map[string]any{"app": name}},
					"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name}},
						"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx:1.27",
							"resources": map[string]any{"limits": map[string]any{"cpu": "500m", "memory": "128Mi"}}}}}}}}}}
		ks.Objects = append(ks.Objects, o)
		c.Owners[o.ID] = []*graph.Object{o}
	}
	b.Run("invalid-spec", func(b *testing.B) {
		for range b.N {
			if fs := invalidSpec(c, c, &Env{}); len(fs) != 0 {
				b.Fatal(dump(fs))
			}
		}
	})
	b.Run("all-state-rules", func(b *testing.B) {
		for range b.N {
			env := &Env{Catalog: NewCatalog(nil)}
			for _, r := range State {
				r.Check(c, c, env)
			}
		}
	})
}
