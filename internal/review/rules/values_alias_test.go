package rules

import (
	"strings"
	"testing"
	"time"
)

// aliasBomb is YAML whose aliases expand to 9^9 nodes (billion laughs), at key bomb.
func aliasBomb(indent string) string {
	lines := []string{"bomb:", "  a: &a [x, x, x, x, x, x, x, x, x]"}
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		refs := strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", ")
		lines = append(lines, "  "+n+": &"+n+" ["+refs+"]")
		prev = n
	}
	for i := range lines {
		lines[i] = indent + lines[i]
	}
	return strings.Join(lines, "\n")
}

// TestValuesAliasBomb: inline values, a chart's values.yaml or a valuesFiles entry with a
// YAML alias bomb is a bounded, clear error naming the file, never a hang, a crash or a
// render that silently leaves the file out.
func TestValuesAliasBomb(t *testing.T) {
	base := merge(appChart, map[string]string{tierFile("platform"): tier("platform", "./platform", true), "platform/ns.yaml": namespaceObj("widgets")})
	bomb := "has YAML aliases that expand to 490329097 nodes from 78, which kustomize would expand without bound (billion laughs)"
	fileBomb := "has YAML aliases that expand to 490329067 nodes from 48, which kustomize would expand without bound (billion laughs)"
	cases := []struct {
		name  string
		rule  string
		files map[string]string
		want  []want
	}{
		{"inline values", "render-error", map[string]string{"platform/a.yaml": widgetHR("a", "app") + "  values:\n" + aliasBomb("    ") + "\n"},
			[]want{{Rule: "render-error", Severity: Error, Kustomization: "flux-system/platform", File: "platform/a.yaml", Line: 1,
				Msg: []string{"platform/a.yaml " + bomb}}}},
		{"chart values.yaml", "helm-render-error", map[string]string{"platform/a.yaml": widgetHR("a", "app"), "charts/app/values.yaml": aliasBomb("") + "\n"},
			[]want{{Rule: "helm-render-error", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
				File: "platform/a.yaml", Line: 2,
				Msg: []string{"chart file charts/app/values.yaml is not read: charts/app/values.yaml " + fileBomb}}}},
		{name: "valuesFiles entry under ignoreMissingValuesFiles", rule: "helm-render-error"},
	}
	cases[2].files = map[string]string{"values/bomb.yaml": aliasBomb("") + "\n",
		"platform/a.yaml": obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "widgets", "a", "spec:", "  chart:", "    spec:", "      chart: ./charts/app",
			"      valuesFiles: [./values/bomb.yaml]", "      ignoreMissingValuesFiles: true",
			"      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}", "  interval: 10m")}
	cases[2].want = []want{{Rule: "helm-render-error", Severity: Error, Kustomization: "flux-system/platform", Object: "HelmRelease.helm.toolkit.fluxcd.io/widgets/a",
		File: "platform/a.yaml", Line: 2, Msg: []string{"chart file values/bomb.yaml is not read: values/bomb.yaml " + fileBomb}}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			c := renderTree(t, merge(base, tc.files))
			if d := time.Since(start); d > time.Minute {
				t.Errorf("render took %s", d)
			}
			checkFindings(t, stateRule(t, tc.rule)(c, nil, testEnv()), tc.want)
		})
	}
}
