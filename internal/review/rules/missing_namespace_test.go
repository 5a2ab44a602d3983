package rules

import "testing"

// TestMissingNamespace: objects a Kustomization applies in a Namespace nothing creates fail
// its dry-run; one finding per Kustomization and namespace. Not when a Kustomization or a
// chart creates it, a HelmRelease's createNamespace does, it is the Flux or a system
// namespace, or the object is cluster-scoped. A warning when a chart is not rendered.
func TestMissingNamespace(t *testing.T) {
	base := merge(appChart, map[string]string{tierFile("platform"): tier("platform", "./platform", true), "platform/ns.yaml": namespaceObj("widgets")})
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{"two objects, one namespace", map[string]string{"platform/a.yaml": configMap("team", "a") + "---\n" + configMap("team", "b")},
			[]want{{Rule: "missing-namespace", Severity: Error, Kustomization: "flux-system/platform", Object: "Namespace/team",
				File: "platform/a.yaml", Line: 2,
				Msg:  []string{`ConfigMap/team/a and 1 other object of Kustomization flux-system/platform are in Namespace team, which nothing in cluster dev creates`, `'namespaces "team" not found'`},
				Sugg: []string{"Add a Namespace team manifest to flux-system/platform or to a Kustomization it dependsOn", "object {kind: Namespace, name: team}"}}}},
		{"a HelmRelease in a namespace nothing creates", map[string]string{"platform/a.yaml": obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "apps", "a",
			"spec:", "  chart:", "    spec:", "      chart: ./charts/app", "      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}", "  interval: 10m")},
			[]want{{Rule: "missing-namespace", Severity: Error, Kustomization: "flux-system/platform", Object: "Namespace/apps", File: "platform/a.yaml", Line: 2,
				Msg: []string{"HelmRelease.helm.toolkit.fluxcd.io/apps/a of Kustomization flux-system/platform is in Namespace apps"}}}},
		{"chart not rendered: a warning", map[string]string{"platform/a.yaml": configMap("team", "a"),
			"platform/b.yaml": widgetHR("b", "app") + "---\n" + obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "widgets", "remote",
				"spec:", "  chart:", "    spec:", "      chart: podinfo", "      sourceRef: {kind: HelmRepository, name: podinfo}", "  interval: 10m")},
			[]want{{Rule: "missing-namespace", Severity: Warning, Kustomization: "flux-system/platform", Object: "Namespace/team", File: "platform/a.yaml", Line: 2,
				Msg: []string{"ConfigMap/team/a of Kustomization flux-system/platform is in Namespace team"}}}},
		// Negative cases.
		{"a Kustomization emits it", map[string]string{"platform/a.yaml": configMap("team", "a"), "platform/team.yaml": namespaceObj("team")}, nil},
		{"another tier emits it", map[string]string{"platform/a.yaml": configMap("team", "a"), tierFile("base"): tier("base", "./base", true), "base/team.yaml": namespaceObj("team")}, nil},
		{"createNamespace", map[string]string{"platform/a.yaml": configMap("team", "a") + "---\n" + widgetHR("b", "app", "targetNamespace: team", "install: {createNamespace: true}")}, nil},
		{"flux and system namespaces", map[string]string{"platform/a.yaml": configMap("flux-system", "a") + "---\n" + configMap("kube-system", "b") + "---\n" + configMap("default", "c")}, nil},
		{"cluster-scoped object with a namespace", map[string]string{"platform/a.yaml": obj("rbac.authorization.k8s.io/v1", "ClusterRole", "team", "a", "rules: []")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, merge(base, tc.files))
			checkFindings(t, stateRule(t, "missing-namespace")(c, nil, testEnv()), tc.want)
		})
	}
	// A namespace a bootstrap helmfile installs a release into exists before Flux runs.
	t.Run("bootstrap helmfile namespace", func(t *testing.T) {
		c := renderTree(t, merge(base, map[string]string{"platform/a.yaml": configMap("team", "a")}))
		env := testEnv()
		env.BootstrapNamespaces = map[string]bool{"team": true}
		checkFindings(t, stateRule(t, "missing-namespace")(c, nil, env), nil)
	})
}

// TestMissingNamespaceInFailedBuild: a Namespace that a Kustomization failing at head
// emitted at the other commit is not reported missing: the failed build would most likely
// still create it, and its render-error already says the tier applies nothing. Without
// such evidence the finding stays (a warning, as part of the graph is unknown).
func TestMissingNamespaceInFailedBuild(t *testing.T) {
	tiers := map[string]string{tierFile("config"): tier("config", "./config", true), tierFile("apps"): tier("apps", "./apps", true),
		"apps/cm.yaml": configMap("team", "a")}
	broken := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n  namespace: team\n data: {}\n"
	base := renderTree(t, merge(tiers, map[string]string{"config/ns.yaml": namespaceObj("team")}))
	t.Run("the failed tier emitted it", func(t *testing.T) {
		head := renderTree(t, merge(tiers, map[string]string{"config/ns.yaml": namespaceObj("team"), "config/bad.yaml": broken}))
		checkFindings(t, stateRule(t, "missing-namespace")(head, base, testEnv()), nil)
	})
	t.Run("negative: the failed tier never emitted it", func(t *testing.T) {
		other := renderTree(t, merge(tiers, map[string]string{"config/cm.yaml": configMap("default", "c")}))
		head := renderTree(t, merge(tiers, map[string]string{"config/bad.yaml": broken}))
		checkFindings(t, stateRule(t, "missing-namespace")(head, other, testEnv()), []want{{Rule: "missing-namespace", Severity: Warning, Kustomization: "flux-system/apps", Object: "Namespace/team",
			File: "apps/cm.yaml", Line: 2, Msg: []string{"ConfigMap/team/a of Kustomization flux-system/apps is in Namespace team, which nothing in cluster dev creates"}}})
	})
}

// TestMissingCRDInFailedBuild: the same for a CRD: one that a tier failing at head emitted
// at the other commit is no missing-crd (not even the notice of an unknown producer).
func TestMissingCRDInFailedBuild(t *testing.T) {
	tiers := map[string]string{tierFile("config"): tier("config", "./config", true), tierFile("apps"): tier("apps", "./apps", true),
		"apps/w.yaml": obj("example.com/v1", "Widget", "default", "w", "spec: {}")}
	broken := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n  namespace: default\n data: {}\n"
	widgetCRD := crd("example.com", "Widget", "widgets", "Namespaced")
	base := renderTree(t, merge(tiers, map[string]string{"config/crd.yaml": widgetCRD}))
	head := renderTree(t, merge(tiers, map[string]string{"config/crd.yaml": widgetCRD, "config/bad.yaml": broken}))
	checkFindings(t, stateRule(t, "missing-crd")(head, base, testEnv()), nil)
	t.Run("negative: no other commit to tell", func(t *testing.T) {
		checkFindings(t, stateRule(t, "missing-crd")(head, nil, testEnv()), []want{{Rule: "missing-crd", Severity: Notice, Kustomization: "flux-system/apps",
			Object: "Widget.example.com/default/w", File: "apps/w.yaml", Line: 2,
			Msg: []string{"No reviewed Kustomization or chart of cluster dev installs the CRD of Widget.example.com, used by Widget.example.com/default/w and maybe others; not checked, since Kustomization flux-system/config (fails to build) may install it."}}})
	})
}

// TestMissingNamespaceAtTargetChange: a targetNamespace changed to a Namespace nothing
// creates is reported on the `targetNamespace:` line (13), the change, the first object
// named with its file:line; with the same target in the other commit, at the object.
func TestMissingNamespaceAtTargetChange(t *testing.T) {
	files := func(target string) map[string]string {
		return map[string]string{tierFile("apps"): tier("apps", "./apps", true, "targetNamespace: "+target), "apps/cm.yaml": configMap("", "settings")}
	}
	msg := func(at string) string {
		return "ConfigMap/team/settings" + at + " of Kustomization flux-system/apps is in Namespace team, which nothing in cluster dev creates (no Kustomization or chart renders it, no HelmRelease's install.createNamespace creates it): " +
			"on a cluster without it, the dry-run of flux-system/apps fails with 'namespaces \"team\" not found' and applies nothing."
	}
	for _, tc := range []struct {
		name, otherTarget, file, msg string
		line                         int
	}{
		{"the target changes", "default", "clusters/dev/apps.yaml", msg(" (apps/cm.yaml:2)"), 13},
		{"negative: the same target in both commits", "team", "apps/cm.yaml", msg(""), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, other := renderTree(t, files("team")), renderTree(t, files(tc.otherTarget))
			checkFindings(t, stateRule(t, "missing-namespace")(c, other, testEnv()), []want{{Rule: "missing-namespace", Severity: Error,
				Kustomization: "flux-system/apps", Object: "Namespace/team", File: tc.file, Line: tc.line, Msg: []string{tc.msg}}})
		})
	}
}

// TestMissingNamespaceDeleted: a Namespace the base applies from a pruning Kustomization and
// the head removes while an object stays in it is deleted on every running cluster: the new
// finding says so. Not when the owner does not prune, when the Namespace is protected, or
// for an existing finding (the base lacks the Namespace too: a cold cluster only).
func TestMissingNamespaceDeleted(t *testing.T) {
	files := func(prune, withNS bool, nsExtra ...string) map[string]string {
		f := map[string]string{tierFile("platform"): tier("platform", "./platform", prune), "platform/a.yaml": configMap("team", "a"), "platform/keep.yaml": configMap("flux-system", "keep")}
		if withNS {
			f["platform/ns.yaml"] = namespaceObj("team", nsExtra...)
		}
		return f
	}
	cold := "ConfigMap/team/a of Kustomization flux-system/platform is in Namespace team, which nothing in cluster dev creates (no Kustomization or chart renders it, no HelmRelease's install.createNamespace creates it): on a cluster without it, the dry-run of flux-system/platform fails with 'namespaces \"team\" not found' and applies nothing."
	deleted := "ConfigMap/team/a of Kustomization flux-system/platform is in Namespace team, which nothing in cluster dev creates (no Kustomization or chart renders it, no HelmRelease's install.createNamespace creates it): " +
		"this merge deletes Namespace team on every running cluster (Kustomization flux-system/platform garbage-collects it), and on each of them, the dry-run of flux-system/platform fails with 'namespaces \"team\" not found' and applies nothing."
	add := "Add a Namespace team manifest to flux-system/platform or to a Kustomization it dependsOn; if the cluster has it before Flux runs, ignore this finding in .tiergate.yaml (rule missing-namespace, object {kind: Namespace, name: team})."
	cases := []struct {
		name       string
		base, head map[string]string
		status     Status
		msg, sugg  string
	}{
		{"pruned", files(true, true), files(true, false), StatusNew, deleted,
			"Keep the Namespace team manifest (in flux-system/platform or a Kustomization it dependsOn) while objects still use it, or move those objects to their new namespace along with it."},
		// Negative cases.
		{"not pruned", files(false, true), files(false, false), StatusNew, cold, add},
		{"protected", files(true, true, "  annotations:", "    kustomize.toolkit.fluxcd.io/prune: disabled"), files(true, false), StatusNew, cold, add},
		{"existing", files(true, false), files(true, false), StatusExisting, cold, add},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderTree(t, tc.base), renderTree(t, tc.head)
			got := stateRule(t, "missing-namespace")(head, base, testEnv())
			if len(got) != 1 {
				t.Fatalf("findings:\n%s", dump(got))
			}
			got[0].Status = tc.status
			NamespaceDeleted(got, base, head)
			if got[0].Message != tc.msg {
				t.Errorf("message:\n%s\nwant:\n%s", got[0].Message, tc.msg)
			}
			if got[0].Suggestion != tc.sugg {
				t.Errorf("suggestion:\n%s\nwant:\n%s", got[0].Suggestion, tc.sugg)
			}
		})
	}
}
