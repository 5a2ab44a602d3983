package rules

import (
	"strings"
	"testing"
)

// TestCRDNotUpgraded: a chart change that modifies a CRD of crds/ under the Create (default)
// or Skip upgrade policy leaves existing clusters on the old CRD; CreateReplace replaces it.
// The finding is on the first line the PR changes in the CRD's document of the chart's
// crds/ file (line comments appear only on changed lines), else on its kind line; the
// suggestion names the HelmRelease's policy line.
func TestCRDNotUpgraded(t *testing.T) {
	v1 := crd("example.com", "Widget", "widgets", "Namespaced")
	v2 := v1 + "    - name: v2\n      served: true\n      storage: false\n      schema:\n        openAPIV3Schema:\n          type: object\n"
	gadgets := crd("example.com", "Gadget", "gadgets", "Namespaced")
	release := func(spec ...string) map[string]string {
		return map[string]string{tierFile("a"): tier("a", "./a", true), "a/hr.yaml": helmRelease("default", "app", "app", spec...)}
	}
	crds := func(files ...string) map[string]string {
		m := map[string]string{"templates/cm.yaml": configMap("", "cm")}
		for i, f := range files {
			m[[]string{"crds/widgets.yaml", "crds/gadgets.yaml"}[i]] = f
		}
		return chart("app", m)
	}
	widget := "CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com"
	cases := []struct {
		name       string
		base, head map[string]string
		want       []want
	}{
		{
			name: "modified under the default policy",
			base: merge(release(), crds(v1)), head: merge(release(), crds(v2)),
			want: []want{{Rule: "crd-not-upgraded", Severity: Warning, Kustomization: "flux-system/a", Object: widget, File: "charts/app/crds/widgets.yaml", Line: 19, // v2's first line, after v1's 18
				Msg:  []string{"The chart of HelmRelease default/app changes " + widget + " in app/crds/widgets.yaml, but its spec.upgrade.crds is Create (the default): helm-controller's upgrade creates only the CRDs of crds/ that are missing"},
				Sugg: []string{"`spec.upgrade.crds: CreateReplace` on HelmRelease default/app (a/hr.yaml:2)"}}},
		},
		{
			name: "added under Skip",
			base: merge(release("upgrade: {crds: Skip}"), crds(v1)), head: merge(release("upgrade: {crds: Skip}"), crds(v1, gadgets)),
			want: []want{{Rule: "crd-not-upgraded", Severity: Warning, Kustomization: "flux-system/a", Object: "CustomResourceDefinition.apiextensions.k8s.io/gadgets.example.com", File: "charts/app/crds/gadgets.yaml", Line: 2,
				Msg:  []string{"adds", "is Skip: helm-controller's upgrade applies no CRD of crds/"},
				Sugg: []string{"Set `spec.upgrade.crds: CreateReplace` on HelmRelease default/app (a/hr.yaml:12) so the upgrade replaces the chart's CRDs, or apply the CRDs from a Kustomization."}}},
		},
		{
			name: "modified under an explicit Create: the suggestion names the crds line",
			base: merge(release("upgrade:", "  remediation: {retries: 3}", "  crds: Create"), crds(v1)), head: merge(release("upgrade:", "  remediation: {retries: 3}", "  crds: Create"), crds(v2)),
			want: []want{{Rule: "crd-not-upgraded", Severity: Warning, Kustomization: "flux-system/a", Object: widget, File: "charts/app/crds/widgets.yaml", Line: 19,
				Msg:  []string{"but its spec.upgrade.crds is Create: helm-controller's upgrade creates only"},
				Sugg: []string{"Set `spec.upgrade.crds: CreateReplace` on HelmRelease default/app (a/hr.yaml:14) so the upgrade replaces the chart's CRDs, or apply the CRDs from a Kustomization."}}},
		},
		{
			name: "the second CRD of one file changes: at its first changed line",
			base: merge(release(), chart("app", map[string]string{"crds/all.yaml": gadgets + "---\n" + v1})),
			head: merge(release(), chart("app", map[string]string{"crds/all.yaml": gadgets + "---\n" + v2})),
			want: []want{{Rule: "crd-not-upgraded", Severity: Warning, Kustomization: "flux-system/a", Object: widget, File: "charts/app/crds/all.yaml", Line: 38, // 18 lines of gadgets, "---", widget's 18 lines
				Msg: []string{"The chart of HelmRelease default/app changes " + widget + " in app/crds/all.yaml, but its spec.upgrade.crds is Create (the default): helm-controller's upgrade creates only the CRDs of crds/ that are missing and never updates an existing one, " +
					"so clusters that already run the release keep the old CRD, and custom resources that use what is new in it are rejected or lose those fields."},
				Sugg: []string{"Set `spec.upgrade.crds: CreateReplace` on HelmRelease default/app (a/hr.yaml:2) so the upgrade replaces the chart's CRDs, or apply the CRDs from a Kustomization."}}},
		},
		{
			name: "a line inside the document changes: at that line, not the kind line",
			base: merge(release(), crds(v1)), head: merge(release(), crds(strings.Replace(v1, "served: true", "served: false", 1))),
			want: []want{{Rule: "crd-not-upgraded", Severity: Warning, Kustomization: "flux-system/a", Object: widget, File: "charts/app/crds/widgets.yaml", Line: 13, // "      served: false"
				Msg: []string{"The chart of HelmRelease default/app changes " + widget + " in app/crds/widgets.yaml"}}},
		},
		{
			name: "the document only loses lines: at its kind line (no head line changed)",
			base: merge(release(), crds(v2)), head: merge(release(), crds(v1)),
			want: []want{{Rule: "crd-not-upgraded", Severity: Warning, Kustomization: "flux-system/a", Object: widget, File: "charts/app/crds/widgets.yaml", Line: 2,
				Msg: []string{"The chart of HelmRelease default/app changes " + widget + " in app/crds/widgets.yaml"}}},
		},
		{
			name: "negative: added under the default policy (Create creates it)",
			base: merge(release(), crds(v1)), head: merge(release(), crds(v1, gadgets)),
		},
		{
			name: "negative: modified under CreateReplace",
			base: merge(release("upgrade: {crds: CreateReplace}"), crds(v1)), head: merge(release("upgrade: {crds: CreateReplace}"), crds(v2)),
		},
		{
			name: "negative: unchanged CRD, changed template",
			base: merge(release(), crds(v1)), head: merge(release("values: {a: 1}"), crds(v1)),
		},
		{
			name: "negative: a new release installs its CRDs",
			base: map[string]string{tierFile("a"): tier("a", "./a", true), "a/keep.yaml": configMap("default", "keep")}, head: merge(release(), crds(v2)),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderBuilt(t, tc.base, tc.head)
			checkFindings(t, changeRule(t, "crd-not-upgraded")(base, head, testEnv()), tc.want)
		})
	}
}

// TestFirstChanged: the index of the first head line a line diff adds or changes, -1 when
// the head only lost lines or is the same.
func TestFirstChanged(t *testing.T) {
	ab, abc := []string{"a", "b"}, []string{"a", "b", "c"}
	cases := []struct {
		name     string
		was, now []string
		want     int
	}{
		{"appended", ab, abc, 2},
		{"changed in the middle", abc, []string{"a", "x", "c"}, 1},
		{"inserted in the middle", []string{"a", "c"}, abc, 1},
		{"prepended", []string{"b", "c"}, abc, 0},
		{"repeated line inserted: the first differing one", []string{"a", "a"}, []string{"a", "a", "a"}, 2},
		{"negative: only removed", abc, ab, -1},
		{"negative: same", ab, ab, -1},
		{"negative: both empty", nil, nil, -1},
	}
	for _, tc := range cases {
		if got := firstChanged(tc.was, tc.now); got != tc.want {
			t.Errorf("%s: firstChanged(%q, %q) = %d, want %d", tc.name, tc.was, tc.now, got, tc.want)
		}
	}
}
