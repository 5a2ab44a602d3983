package fluxschema

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

func TestCheck(t *testing.T) {
	hr := func(spec string) string {
		return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: app}\nspec:\n" + spec
	}
	chart := "  chart: {spec: {chart: app, sourceRef: {kind: HelmRepository, name: r}}}\n"
	ks := func(spec string) string {
		return "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps}\nspec:\n  prune: true\n  sourceRef: {kind: GitRepository, name: flux-system}\n" + spec
	}
	cases := []struct {
		name, group, kind, doc string
		want                   []string
	}{
		{name: "valid HelmRelease", group: "helm.toolkit.fluxcd.io", kind: "HelmRelease",
			doc: hr("  interval: 1h30m\n  releaseName: app\n  values: {a: 1}\n  maxHistory: 3\n" + chart)},
		{name: "releaseName of 54 characters", group: "helm.toolkit.fluxcd.io", kind: "HelmRelease",
			doc:  hr("  interval: 5m\n  releaseName: " + strings.Repeat("a", 54) + "\n" + chart),
			want: []string{`spec.releaseName: may be at most 53 characters, got 54 ("` + strings.Repeat("a", 54) + `")`}},
		{name: "interval garbage, values a list, timeout a number", group: "helm.toolkit.fluxcd.io", kind: "HelmRelease",
			doc: hr("  interval: garbage\n  timeout: 30\n  values: [a, b]\n" + chart),
			want: []string{`spec.interval: "garbage" is not a duration such as 30s, 5m or 1h30m (the schema's pattern ^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$)`,
				"spec.timeout: must be a string, got an integer", "spec.values: must be an object, got a list"}},
		{name: "no interval, no chart nor chartRef, a bad enum in a list", group: "helm.toolkit.fluxcd.io", kind: "HelmRelease",
			doc: hr("  install: {crds: Always}\n  valuesFrom: [{kind: ConfigMap, name: a}, {kind: Configmap, name: b}]\n"),
			want: []string{"spec.interval: is required", `spec.install.crds: "Always" is not one of Skip, Create, CreateReplace`,
				`spec.valuesFrom[1].kind: "Configmap" is not one of Secret, ConfigMap`, "spec: either chart or chartRef must be set (neither is set)"}},
		{name: "chart without spec.chart", group: "helm.toolkit.fluxcd.io", kind: "HelmRelease",
			doc:  hr("  interval: 5m\n  chart: {spec: {sourceRef: {kind: HelmRepository, name: r}}}\n"),
			want: []string{"spec.chart.spec.chart: is required"}},
		{name: "valid Kustomization without path", group: "kustomize.toolkit.fluxcd.io", kind: "Kustomization",
			doc: ks("  interval: 10m\n")},
		{name: "Kustomization interval and targetNamespace", group: "kustomize.toolkit.fluxcd.io", kind: "Kustomization",
			doc: ks("  interval: 10 minutes\n  targetNamespace: ''\n  postBuild: {substituteFrom: [{kind: Secret, name: ''}]}\n"),
			want: []string{`spec.interval: "10 minutes" is not a duration such as 30s, 5m or 1h30m (the schema's pattern ^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$)`,
				"spec.targetNamespace: must not be empty", "spec.postBuild.substituteFrom[0].name: must not be empty"}},
		{name: "a kind without a schema", group: "", kind: "ConfigMap", doc: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: [b]}\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(tc.doc), &obj); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range Check(tc.group, tc.kind, obj) {
				got = append(got, v.Msg)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("violations (-want +got):\n%s", d)
			}
		})
	}
}
