package rules

import (
	"testing"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestCRDVersionUnserved: a chart's crds/ CRD gains v2 and a custom resource of a later tier
// switches to v2. Under the default (Create) or Skip upgrade policy clusters that run the
// release keep the CRD without v2, so that tier's dry-run fails: an error at the resource's
// apiVersion line, next to the warning on the CRD. CreateReplace, or a resource that keeps
// v1, is no error.
func TestCRDVersionUnserved(t *testing.T) {
	v1 := crd("example.com", "Widget", "widgets", "Namespaced")
	v2 := v1 + "    - name: v2\n      served: true\n      storage: false\n      schema:\n        openAPIV3Schema:\n          type: object\n"
	const widget = "CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com"
	tree := func(crdDoc, crVersion string, spec ...string) map[string]string {
		return merge(map[string]string{
			tierFile("a"): tier("a", "./a", true), "a/hr.yaml": helmRelease("default", "app", "app", spec...),
			tierFile("b"): tier("b", "./b", true, dependsOn("a")...), "b/w.yaml": obj("example.com/"+crVersion, "Widget", "default", "w1", "spec: {}"),
			tierFile("c"): tier("c", "./c", true, dependsOn("b")...), "c/cm.yaml": configMap("default", "c"),
		}, chart("app", map[string]string{"crds/widgets.yaml": v2Or(crdDoc, v1, v2)}))
	}
	warning := func(policy, effect string) want {
		return want{Rule: "crd-not-upgraded", Severity: Warning, Kustomization: "flux-system/a", Object: widget, File: "charts/app/crds/widgets.yaml", Line: 19,
			Msg: []string{"The chart of HelmRelease default/app changes " + widget + " in app/crds/widgets.yaml, but its spec.upgrade.crds is " + policy + ": helm-controller's upgrade " + effect}}
	}
	errAt := func(why, sugg string) want {
		return want{Rule: "crd-not-upgraded", Severity: Error, Kustomization: "flux-system/b", Object: "Widget.example.com/default/w1", File: "b/w.yaml", Line: 1,
			Msg: []string{"Widget.example.com/default/w1 uses example.com/v2, which " + widget + " of HelmRelease default/app's chart (app/crds/widgets.yaml) serves only from this change on: " +
				"clusters that already run the release keep the CRD serving v1, not v2, because " + why + ". " +
				"There the dry-run of flux-system/b fails with 'no matches for kind \"Widget\" in version \"example.com/v2\"' on every reconcile and applies nothing, " +
				"and the Kustomizations that depend on it (flux-system/c) wait. A cluster bootstrapped from this commit gets the new CRD."},
			Sugg: []string{sugg}}
	}
	const create = "creates only the CRDs of crds/ that are missing and never updates an existing one"
	cases := []struct {
		name       string
		base, head map[string]string
		want       []want
	}{
		{"default policy", tree("v1", "v1"), tree("v2", "v2"), []want{warning("Create (the default)", create),
			errAt("its spec.upgrade.crds is Create (the default) and helm-controller's upgrade "+create,
				"Set `spec.upgrade.crds: CreateReplace` on HelmRelease default/app (a/hr.yaml:2) so that the upgrade replaces the CRD, or ship the CRD outside crds/ (from a Kustomization with `wait: true` that flux-system/b dependsOn).")}},
		{"Skip", tree("v1", "v1", "upgrade: {crds: Skip}"), tree("v2", "v2", "upgrade: {crds: Skip}"), []want{warning("Skip", "applies no CRD of crds/"),
			errAt("its spec.upgrade.crds is Skip and helm-controller's upgrade applies no CRD of crds/",
				"Set `spec.upgrade.crds: CreateReplace` on HelmRelease default/app (a/hr.yaml:12) so that the upgrade replaces the CRD, or ship the CRD outside crds/ (from a Kustomization with `wait: true` that flux-system/b dependsOn).")}},
		{"negative: CreateReplace", tree("v1", "v1", "upgrade: {crds: CreateReplace}"), tree("v2", "v2", "upgrade: {crds: CreateReplace}"), nil},
		{"negative: the resource keeps v1", tree("v1", "v1"), tree("v2", "v1"), []want{warning("Create (the default)", create)}},
		{"negative: a Kustomization applies the new CRD too", tree("v1", "v1"), merge(tree("v2", "v2"), map[string]string{"a/crd.yaml": v2}), []want{warning("Create (the default)", create)}},
		{"negative: a new release installs the new CRD", merge(tree("v1", "v1"), map[string]string{"a/hr.yaml": configMap("default", "x")}), tree("v2", "v2"), []want{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderBuilt(t, tc.base, tc.head)
			checkFindings(t, changeRule(t, "crd-not-upgraded")(base, head, testEnv()), tc.want)
		})
	}
}

// TestCRDVersionUnservedKeptChart: the same change without a chart version bump. The
// release keeps its chart (rendered from the base's, graph.Release.ChartKept), so even
// CreateReplace brings no v2 to running clusters: the error stands, and the fix bumps the
// version first. The CRD shipped is read from the tree's chart file.
func TestCRDVersionUnservedKeptChart(t *testing.T) {
	v1 := crd("example.com", "Widget", "widgets", "Namespaced")
	v2 := v1 + "    - name: v2\n      served: true\n      storage: false\n      schema:\n        openAPIV3Schema:\n          type: object\n"
	tree := func(crdDoc, crVersion string, spec ...string) map[string]string {
		return merge(map[string]string{
			tierFile("a"): tier("a", "./a", true), "a/hr.yaml": helmRelease("default", "app", "app", spec...),
			tierFile("b"): tier("b", "./b", true, dependsOn("a")...), "b/w.yaml": obj("example.com/"+crVersion, "Widget", "default", "w1", "spec: {}"),
		}, chart("app", map[string]string{"crds/widgets.yaml": crdDoc}))
	}
	for _, tc := range []struct {
		name, sugg string
		spec       []string
	}{
		{"default policy", "Bump `version` in charts/app/Chart.yaml and set `spec.upgrade.crds: CreateReplace` on HelmRelease default/app (a/hr.yaml:2) so that the upgrade replaces the CRD, or ship the CRD outside crds/ (from a Kustomization with `wait: true` that flux-system/b dependsOn).", nil},
		{"CreateReplace", "Bump `version` in charts/app/Chart.yaml so that the upgrade replaces the CRD, or ship the CRD outside crds/ (from a Kustomization with `wait: true` that flux-system/b dependsOn).", []string{"upgrade: {crds: CreateReplace}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderBuilt(t, tree(v1, "v1", tc.spec...), tree(v2, "v2", tc.spec...))
			keepBaseChart(base, head, "a", "default/app")
			checkFindings(t, crdVersionUnserved(base, head), []want{{Rule: "crd-not-upgraded", Severity: Error, Kustomization: "flux-system/b", Object: "Widget.example.com/default/w1", File: "b/w.yaml", Line: 1,
				Msg: []string{"Widget.example.com/default/w1 uses example.com/v2, which CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com of HelmRelease default/app's chart (app/crds/widgets.yaml) serves only from this change on: " +
					"clusters that already run the release keep the CRD serving v1, not v2, because its chart's version is not bumped and helm-controller keeps the chart it has, without upgrading the release. " +
					"There the dry-run of flux-system/b fails with 'no matches for kind \"Widget\" in version \"example.com/v2\"' on every reconcile and applies nothing. A cluster bootstrapped from this commit gets the new CRD."},
				Sugg: []string{tc.sugg}}})
		})
	}
	t.Run("negative: the tree's CRD does not serve the version either", func(t *testing.T) {
		base, head := renderBuilt(t, tree(v1, "v1"), tree(v1, "v2"))
		keepBaseChart(base, head, "a", "default/app")
		checkFindings(t, crdVersionUnserved(base, head), nil)
	})
}

// keepBaseChart makes HelmRelease hr of Kustomization ks in head what the render makes of
// a chart changed without a version bump: rendered from the base's chart (its objects
// carry the base's bodies) and marked ChartKept, while the tree holds the new files.
func keepBaseChart(base, head *graph.Cluster, ks, hr string) {
	k := head.Kustomizations[graph.Ref{Namespace: "flux-system", Name: ks}]
	for i := range k.Releases {
		if hrName(k.Releases[i].HelmRelease) == hr {
			k.Releases[i].ChartKept = "chart changes but its version does not"
		}
	}
	for _, o := range k.Objects {
		if o.HelmRelease == hr {
			if prev := base.Owners[o.ID]; len(prev) > 0 {
				o.Body = prev[0].Body
			}
		}
	}
}

func v2Or(which, v1, v2 string) string {
	if which == "v2" {
		return v2
	}
	return v1
}
