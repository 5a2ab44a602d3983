package rules

import "testing"

// TestRuntimeNamespaceSamePass: an object in the Namespace that only a HelmRelease's
// install.createNamespace (or its chart's template) creates, in that HelmRelease's own
// Kustomization, deadlocks it (kustomize-controller#511). Not when the build emits the
// Namespace, when the object is in a later tier, or for the chart's own objects.
func TestRuntimeNamespaceSamePass(t *testing.T) {
	hr := widgetHR("app", "app", "targetNamespace: team", "install:", "  createNamespace: true")
	nsChart := map[string]string{
		"charts/nschart/Chart.yaml":        "apiVersion: v2\nname: nschart\nversion: 0.1.0\n",
		"charts/nschart/templates/ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tenant\n",
	}
	base := merge(appChart, nsChart, map[string]string{tierFile("platform"): tier("platform", "./platform", true), "platform/ns.yaml": namespaceObj("widgets")})
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{"createNamespace", map[string]string{"platform/app.yaml": hr, "platform/cm.yaml": configMap("team", "settings")},
			[]want{{Rule: "runtime-namespace-same-pass", Severity: Error, Kustomization: "flux-system/platform", Object: "ConfigMap/team/settings",
				File: "platform/cm.yaml", Line: 2,
				Msg:  []string{`ConfigMap/team/settings is in Namespace team, which only HelmRelease widgets/app's install.createNamespace creates, once helm-controller installs it, but both are in flux-system/platform: on a cluster without team, Flux's dry-run fails with 'namespaces "team" not found'`},
				Sugg: []string{"Add a Namespace team manifest to flux-system/platform"}}}},
		{"chart template", map[string]string{"platform/ns-hr.yaml": widgetHR("tenant", "nschart"), "platform/cm.yaml": configMap("tenant", "settings")},
			[]want{{Rule: "runtime-namespace-same-pass", Severity: Error, Kustomization: "flux-system/platform", Object: "ConfigMap/tenant/settings",
				File: "platform/cm.yaml", Line: 2, Msg: []string{"which only HelmRelease widgets/tenant's chart creates"}}}},
		// Negative cases.
		{"the build emits the Namespace", map[string]string{"platform/app.yaml": hr, "platform/cm.yaml": configMap("team", "settings"), "platform/team.yaml": namespaceObj("team")}, nil},
		{"later tier", map[string]string{"platform/app.yaml": hr, tierFile("apps"): tier("apps", "./apps", true, dependsOn("platform")...), "apps/cm.yaml": configMap("team", "settings")}, nil},
		{"only the chart's objects", map[string]string{"platform/app.yaml": hr}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, merge(base, tc.files))
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "runtime-namespace-same-pass")(c, nil, testEnv()), tc.want)
		})
	}
}

// TestRuntimeNamespaceSamePassFixNeeds: the Kustomization the suggestion moves the object to
// also dependsOn the tier of the object's CRD when platform does not reach it; not when it does.
func TestRuntimeNamespaceSamePassFixNeeds(t *testing.T) {
	hr := widgetHR("app", "app", "targetNamespace: team", "install:", "  createNamespace: true")
	files := func(platformSpec ...string) map[string]string {
		return merge(appChart, map[string]string{
			tierFile("platform"): tier("platform", "./platform", true, platformSpec...), "platform/ns.yaml": namespaceObj("widgets"),
			"platform/app.yaml": hr, "platform/g.yaml": obj("example.com/v1", "Gadget", "team", "g1", "spec: {}"),
			tierFile("crds"): tier("crds", "./crds", true), "crds/crd.yaml": crd("example.com", "Gadget", "gadgets", "Namespaced"),
		})
	}
	const add = "Add a Namespace team manifest to flux-system/platform (Helm's createNamespace then finds it and skips creating it), or move Gadget.example.com/team/g1 to a Kustomization with:\n  dependsOn:\n    - name: platform"
	const waitTail = "and set `wait: true` on flux-system/platform (clusters/dev/platform.yaml:2). " +
		"dependsOn alone is not enough: kustomize-controller starts a dependent once flux-system/platform is Ready, and without `wait: true` or a healthCheck on HelmRelease.helm.toolkit.fluxcd.io/widgets/app that is as soon as it has applied, before Namespace team exists.\n" +
		"  # Kustomization flux-system/platform\n  spec:\n    wait: true"
	for _, tc := range []struct {
		name, want string
		files      map[string]string
	}{
		{"the CRD from a tier platform does not reach", add + "\n    - name: crds\n" + waitTail, files()},
		{"negative: platform dependsOn it", add + "\n" + waitTail, files(dependsOn("crds")...)},
		{"negative: platform already waits", add + "\n    - name: crds\nflux-system/platform already has `wait: true`, so it is Ready only once HelmRelease.helm.toolkit.fluxcd.io/widgets/app is healthy, and its dependents start after that.", files("wait: true")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			got := stateRule(t, "runtime-namespace-same-pass")(c, nil, testEnv())
			if len(got) != 1 || got[0].Suggestion != tc.want {
				t.Fatalf("got %s\nwant one finding with suggestion:\n%s", dump(got), tc.want)
			}
		})
	}
}
