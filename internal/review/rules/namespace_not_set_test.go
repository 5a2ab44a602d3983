package rules

import "testing"

func TestNamespaceNotSet(t *testing.T) {
	apps := func(file, content string, spec ...string) map[string]string {
		return map[string]string{
			tierFile("apps"): tier("apps", "./apps", true, spec...),
			"apps/" + file:   content,
		}
	}
	crds := func(scope string) map[string]string {
		return map[string]string{
			tierFile("crds"): tier("crds", "./crds", true),
			"crds/crd.yaml":  crd("example.com", "Widget", "widgets", scope),
		}
	}
	widget := obj("example.com/v1", "Widget", "", "w1", "spec: {}")
	notSet := func(object, file string) want {
		return want{
			Rule: "namespace-not-set", Severity: Error, Kustomization: "flux-system/apps",
			Object: object, File: "apps/" + file, Line: 2,
			Msg:  []string{"is namespaced but renders without a namespace", "'namespace not specified'"},
			Sugg: []string{"in apps/" + file + ":2", "spec.targetNamespace on flux-system/apps"},
		}
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{
			name:  "ConfigMap without namespace",
			files: apps("cm.yaml", configMap("", "cm")),
			want:  []want{notSet("ConfigMap/cm", "cm.yaml")},
		},
		{
			name:  "ConfigMap with namespace",
			files: apps("cm.yaml", configMap("default", "cm")),
		},
		{
			name:  "targetNamespace",
			files: apps("cm.yaml", configMap("", "cm"), "targetNamespace: default"),
		},
		{
			name: "namespace in kustomization.yaml",
			files: merge(apps("cm.yaml", configMap("", "cm")), map[string]string{
				"apps/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: default\nresources:\n  - cm.yaml\n",
			}),
		},
		{
			name:  "cluster-scoped built-in kind",
			files: apps("cr.yaml", obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "reader", "rules: []")),
		},
		{
			name:  "custom kind whose CRD in the graph is Namespaced",
			files: merge(crds("Namespaced"), apps("w.yaml", widget)),
			want:  []want{notSet("Widget.example.com/w1", "w.yaml")},
		},
		{
			name:  "custom kind whose CRD in the graph is Cluster",
			files: merge(crds("Cluster"), apps("w.yaml", widget)),
		},
		{
			name:  "runtime kind that the catalog says is Namespaced",
			files: apps("dv.yaml", obj("cdi.kubevirt.io/v1beta1", "DataVolume", "", "disk", "spec: {}")),
			want:  []want{notSet("DataVolume.cdi.kubevirt.io/disk", "dv.yaml")},
		},
		{
			name:  "runtime kind that the catalog says is Cluster",
			files: apps("sp.yaml", storageProfile("fast")),
		},
		{
			name:  "unknown kind",
			files: apps("w.yaml", widget),
		},
		{
			// targetNamespace sets the ResourceSet's namespace, not its objects'.
			name: "ResourceSet renders a ConfigMap without namespace",
			files: apps("rset.yaml", obj("fluxcd.controlplane.io/v1", "ResourceSet", "", "gen",
				"spec:\n  inputs: [{n: one}]\n  resourcesTemplate: |\n    apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: cm-<< inputs.n >>"),
				"targetNamespace: default"),
			want: []want{{
				Rule: "namespace-not-set", Severity: Error, Kustomization: "flux-system/apps",
				Object: "ConfigMap/cm-one", File: "apps/rset.yaml", Line: 2,
				Msg:  []string{"ResourceSet default/gen renders it without a namespace, which flux-operator does not default"},
				Sugg: []string{"in the template of ResourceSet default/gen (apps/rset.yaml:2)"},
			}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "namespace-not-set")(c, nil, testEnv()), tc.want)
		})
	}
}

func TestNamespaceNotSetKnowsAddonScopes(t *testing.T) {
	c := renderTree(t, map[string]string{
		tierFile("apps"): tier("apps", "./apps", true),
		"apps/cert.yaml": obj("cert-manager.io/v1", "Certificate", "", "web", "spec: {secretName: web-tls}"),
		"apps/ci.yaml":   obj("cert-manager.io/v1", "ClusterIssuer", "", "le", "spec: {selfSigned: {}}"),
	})
	checkBuilt(t, c)
	checkFindings(t, stateRule(t, "namespace-not-set")(c, nil, testEnv()), []want{{
		Rule: "namespace-not-set", Severity: Error, Kustomization: "flux-system/apps",
		Object: "Certificate.cert-manager.io/web", File: "apps/cert.yaml", Line: 2,
	}})
}
