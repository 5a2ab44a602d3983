package rules

import (
	"strings"
	"testing"
)

func TestRenderError(t *testing.T) {
	cases := []struct {
		name   string
		files  map[string]string
		broken []string
		want   []want
	}{
		{
			name: "builds",
			files: map[string]string{
				tierFile("apps"): tier("apps", "./apps", true),
				"apps/cm.yaml":   configMap("default", "cm"),
			},
		},
		{
			name: "missing resource file",
			files: map[string]string{
				tierFile("apps"): tier("apps", "./apps", true),
				"apps/cm.yaml":   configMap("default", "cm"),
				"apps/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
  - cm.yaml
  - missing.yaml
`,
			},
			broken: []string{"apps"},
			want: []want{{
				Rule: "render-error", Severity: Error, Kustomization: "flux-system/apps",
				File: "apps/kustomization.yaml", Line: 5,
				Msg:  []string{"Kustomization flux-system/apps fails to build, so Flux applies none of it", "missing.yaml"},
				Sugg: []string{"Fix apps/kustomization.yaml:5"},
			}},
		},
		{
			name: "a listed manifest that is not YAML: the manifest's line",
			files: map[string]string{
				tierFile("apps"):          tier("apps", "./apps", true),
				"apps/cm.yaml":            configMap("default", "cm"),
				"apps/bad.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n  namespace: default\n data: {}\n",
				"apps/kustomization.yaml": "resources:\n  - cm.yaml\n  - bad.yaml\n",
			},
			broken: []string{"apps"},
			want: []want{{
				Rule: "render-error", Severity: Error, Kustomization: "flux-system/apps",
				File: "apps/bad.yaml", Line: 6,
				Msg:  []string{"Kustomization flux-system/apps fails to build, so Flux applies none of it: apps/bad.yaml:6 is not valid YAML: did not find expected key"},
				Sugg: []string{"Fix apps/bad.yaml:6 so that `kustomize build` succeeds for path ./apps."},
			}},
		},
		{
			name: "path not found",
			files: map[string]string{
				tierFile("apps"): tier("apps", "./nope", true),
			},
			broken: []string{"apps"},
			want: []want{{
				Rule: "render-error", Severity: Error, Kustomization: "flux-system/apps",
				File: tierFile("apps"), Line: 8,
				Msg: []string{"kustomization path not found: ./nope"},
			}},
		},
		{
			name: "two tiers fail in build order",
			files: map[string]string{
				tierFile("apps"): tier("apps", "./nope", true),
				tierFile("db"):   tier("db", "./gone", true),
			},
			broken: []string{"apps", "db"},
			want: []want{{
				Rule: "render-error", Severity: Error, Kustomization: "flux-system/apps",
				File: tierFile("apps"), Line: 8, Msg: []string{"./nope"},
			}, {
				Rule: "render-error", Severity: Error, Kustomization: "flux-system/db",
				File: tierFile("db"), Line: 8, Msg: []string{"./gone"},
			}},
		},
		{
			name: "child Kustomization rejected",
			files: map[string]string{
				tierFile("apps"): tier("apps", "./apps", true, "dependsOn: infra"),
				tierFile("db"):   strings.Replace(tier("db", "./db", true), "prune: true", `prune: "yes"`, 1),
				"apps/cm.yaml":   configMap("default", "cm"),
			},
			broken: []string{"flux-system"},
			want: []want{{
				Rule: "render-error", Severity: Error, Kustomization: "flux-system/flux-system",
				File: tierFile("apps"), Line: 13,
				Msg:  []string{"Kustomization flux-system/flux-system fails to apply, so Flux applies none of it: the API server rejects Kustomization flux-system/apps: spec.dependsOn: expected a list, got a string (clusters/dev/apps.yaml:13); Kustomization flux-system/db: spec.prune: expected a boolean, got a string (clusters/dev/db.yaml:9)."},
				Sugg: []string{"Fix clusters/dev/apps.yaml:13, and the other places named, so that the API server accepts the Kustomization (kustomize.toolkit.fluxcd.io/v1 schema)."},
			}},
		},
		{
			// kustomization_types.go Interval: Pattern="^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$";
			// Path is +optional, so a Kustomization without path is accepted.
			name: "child Kustomization with an interval that is no duration; one without path is fine",
			files: map[string]string{
				tierFile("apps"):   strings.Replace(tier("apps", "./apps", true), "interval: 10m0s", "interval: garbage", 1),
				tierFile("nopath"): strings.Replace(tier("nopath", "./apps", true), "  path: ./apps\n", "", 1),
				"apps/cm.yaml":     configMap("default", "cm"),
			},
			broken: []string{"flux-system"},
			want: []want{{
				Rule: "render-error", Severity: Error, Kustomization: "flux-system/flux-system",
				File: tierFile("apps"), Line: 7,
				Msg:  []string{"Kustomization flux-system/flux-system fails to apply, so Flux applies none of it: the API server rejects Kustomization flux-system/apps: spec.interval: \"garbage\" is not a duration such as 30s, 5m or 1h30m (the schema's pattern ^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$) (clusters/dev/apps.yaml:7)."},
				Sugg: []string{"Fix clusters/dev/apps.yaml:7 so that the API server accepts the Kustomization (kustomize.toolkit.fluxcd.io/v1 schema)."},
			}},
		},
		{
			name: "child Kustomization without spec",
			files: map[string]string{
				tierFile("apps"): "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\n",
			},
			broken: []string{"apps"},
			want: []want{{
				Rule: "render-error", Severity: Error, Kustomization: "flux-system/apps",
				File: tierFile("apps"), Line: 2,
				Msg:  []string{"Kustomization flux-system/apps has no spec: the API server accepts it, and kustomize-controller fails it, as it names no source to build from."},
				Sugg: []string{"Give Kustomization flux-system/apps a spec at clusters/dev/apps.yaml:2 (interval, prune, sourceRef, path)."},
			}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, tc.files)
			checkBuilt(t, c, tc.broken...)
			checkFindings(t, stateRule(t, "render-error")(c, nil, testEnv()), tc.want)
		})
	}
}

// TestRejectedHelmReleaseFailsItsKustomization: a HelmRelease the API server rejects (the
// CRD requires spec.interval) fails the dry-run, and with it the whole apply of its
// Kustomization, as a rejected child Kustomization does; one with its interval is applied.
func TestRejectedHelmReleaseFailsItsKustomization(t *testing.T) {
	files := func(hr string) map[string]string {
		return merge(appChart, map[string]string{tierFile("apps"): tier("apps", "./apps", true), "apps/ns.yaml": namespaceObj("widgets"), "apps/hr.yaml": hr})
	}
	noInterval := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "widgets", "app", "spec:", "  chart:", "    spec:", "      chart: ./charts/app",
		"      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}")
	c := renderTree(t, files(noInterval))
	checkFindings(t, stateRule(t, "render-error")(c, nil, testEnv()), []want{{Rule: "render-error", Severity: Error, Kustomization: "flux-system/apps", File: "apps/hr.yaml", Line: 6,
		Msg:  []string{"Kustomization flux-system/apps fails to apply, so Flux applies none of it: the API server rejects HelmRelease widgets/app: spec.interval: is required (apps/hr.yaml:6)."},
		Sugg: []string{"Fix apps/hr.yaml:6 so that the API server accepts the HelmRelease (helm.toolkit.fluxcd.io/v2 schema: spec.interval and a chart or chartRef are required)."}}})
	t.Run("negative: with its interval", func(t *testing.T) {
		checkFindings(t, stateRule(t, "render-error")(renderTree(t, files(widgetHR("app", "app"))), nil, testEnv()), nil)
	})
}
