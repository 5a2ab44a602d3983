package rules

import (
	"testing"

	"github.com/tiergate/tiergate/internal/config"
)

func TestRuntimeCRDSamePass(t *testing.T) {
	gadgets := []config.RuntimeCRDs{{
		CreatedWhen: "example.com/Operator",
		Kinds:       []config.RuntimeKind{{Group: "example.com", Kind: "Gadget", Scope: "Namespaced"}},
	}}
	operatorTier := map[string]string{
		tierFile("ops"): tier("ops", "./ops", true),
		"ops/op.yaml":   obj("example.com/v1", "Operator", "", "op", "spec: {}"),
		"ops/g.yaml":    obj("example.com/v1", "Gadget", "default", "g1", "spec: {}"),
	}
	cases := []struct {
		name  string
		files map[string]string
		extra []config.RuntimeCRDs
		want  []want
	}{
		{
			name: "StorageProfile and CDI in the same tier",
			files: map[string]string{
				tierFile("cdi"): tier("cdi", "./cdi", true),
				"cdi/cdi.yaml":  cdiObj(),
				"cdi/sp.yaml":   storageProfile("fast"),
			},
			want: []want{{
				Rule: "runtime-crd-same-pass", Severity: Error, Kustomization: "flux-system/cdi",
				Object: "StorageProfile.cdi.kubevirt.io/fast", File: "cdi/sp.yaml", Line: 2,
				Msg: []string{"once CDI.cdi.kubevirt.io/cdi reconciles", "both are in flux-system/cdi"},
				Sugg: []string{"Move StorageProfile.cdi.kubevirt.io/fast (cdi/sp.yaml:2) to a new Kustomization that dependsOn flux-system/cdi, and set `wait: true` on flux-system/cdi (clusters/dev/cdi.yaml:2), " +
					"so that it is applied only once CDI.cdi.kubevirt.io/cdi is Ready. " + cdiWhy + "\n  # Kustomization flux-system/cdi\n  spec:\n    wait: true\n" +
					"  # the new Kustomization, e.g. flux-system/cdi-storageprofiles, with the same sourceRef and a path holding sp.yaml\n  spec:\n    dependsOn:\n      - name: cdi"},
			}},
		},
		{
			name: "StorageProfile in another tier",
			files: map[string]string{
				tierFile("cdi"):    tier("cdi", "./cdi", true),
				"cdi/cdi.yaml":     cdiObj(),
				tierFile("cdi-sp"): tier("cdi-sp", "./cdi-sp", true, append([]string{"wait: true"}, dependsOn("cdi")...)...),
				"cdi-sp/sp.yaml":   storageProfile("fast"),
			},
		},
		{
			name: "StorageProfile whose CRD ships in the graph",
			files: map[string]string{
				tierFile("crds"): tier("crds", "./crds", true),
				"crds/crd.yaml":  crd("cdi.kubevirt.io", "StorageProfile", "storageprofiles", "Cluster"),
				tierFile("cdi"):  tier("cdi", "./cdi", true),
				"cdi/cdi.yaml":   cdiObj(),
				"cdi/sp.yaml":    storageProfile("fast"),
			},
		},
		{
			name:  "custom kind from a catalog extension",
			files: operatorTier,
			extra: gadgets,
			want: []want{{
				Rule: "runtime-crd-same-pass", Severity: Error, Kustomization: "flux-system/ops",
				Object: "Gadget.example.com/default/g1", File: "ops/g.yaml", Line: 2,
				Msg: []string{"once Operator.example.com/op reconciles"},
			}},
		},
		{
			name:  "custom kind without the catalog extension",
			files: operatorTier,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			env := &Env{Catalog: NewCatalog(tc.extra), Strict: true}
			checkFindings(t, stateRule(t, "runtime-crd-same-pass")(c, nil, env), tc.want)
		})
	}
}

// TestRuntimeCRDSamePassFixNeeds: the new Kustomization the suggestion asks for also
// dependsOn the tier that provides the moved object's Namespace, when the object's tier
// does not already reach it; applying the suggestion leaves neither runtime-crd-same-pass
// nor missing-depends-on.
func TestRuntimeCRDSamePassFixNeeds(t *testing.T) {
	dv := obj("cdi.kubevirt.io/v1beta1", "DataVolume", "vms", "disk", "spec: {}")
	tree := func(cdiSpec ...string) map[string]string {
		return map[string]string{
			tierFile("namespaces"): tier("namespaces", "./namespaces", true), "namespaces/vms.yaml": namespaceObj("vms"),
			tierFile("cdi"): tier("cdi", "./cdi", true, cdiSpec...), "cdi/cdi.yaml": cdiObj(), "cdi/dv.yaml": dv,
		}
	}
	const lead = "Move DataVolume.cdi.kubevirt.io/vms/disk (cdi/dv.yaml:2) to a new Kustomization that dependsOn flux-system/cdi"
	const tail = ", and set `wait: true` on flux-system/cdi (clusters/dev/cdi.yaml:2), so that it is applied only once CDI.cdi.kubevirt.io/cdi is Ready. " + cdiWhy + "\n" +
		"  # Kustomization flux-system/cdi\n  spec:\n    wait: true\n" +
		"  # the new Kustomization, e.g. flux-system/cdi-datavolumes, with the same sourceRef and a path holding dv.yaml\n  spec:\n    dependsOn:\n      - name: cdi"
	env := &Env{Catalog: NewCatalog(nil), Strict: true}
	for _, tc := range []struct {
		name, sugg string
		files      map[string]string
	}{
		{"the Namespace from a tier cdi does not reach", lead + ", and on flux-system/namespaces (for Namespace vms)" + tail + "\n      - name: namespaces", tree()},
		{"negative: cdi already dependsOn that tier", lead + tail, tree(dependsOn("namespaces")...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			got := stateRule(t, "runtime-crd-same-pass")(c, nil, env)
			if len(got) != 1 || got[0].Suggestion != tc.sugg {
				t.Fatalf("got %s\nwant one finding with suggestion:\n%s", dump(got), tc.sugg)
			}
		})
	}
	t.Run("the suggestion applied", func(t *testing.T) {
		files := tree("wait: true")
		delete(files, "cdi/dv.yaml")
		files[tierFile("cdi-datavolumes")] = tier("cdi-datavolumes", "./cdi-datavolumes", true, dependsOn("cdi", "namespaces")...)
		files["cdi-datavolumes/dv.yaml"] = dv
		c := renderTree(t, files)
		checkBuilt(t, c)
		for _, id := range []string{"runtime-crd-same-pass", "missing-depends-on"} {
			checkFindings(t, stateRule(t, id)(c, nil, env), nil)
		}
	})
}

// cdiWhy is the sentence of the same-pass suggestion that says why the split alone does
// not do: dependsOn waits for Ready, which without wait or a healthCheck is "applied".
const cdiWhy = "dependsOn alone is not enough: kustomize-controller starts a dependent once flux-system/cdi is Ready, and without `wait: true` or a healthCheck on CDI.cdi.kubevirt.io/cdi that is as soon as it has applied, before the CRD exists."

// TestRuntimeCRDSamePassProviderWait: the split asks the trigger's Kustomization to wait in
// the way its spec allows: `wait: true`; a healthCheck entry for the trigger when it
// already lists healthChecks (which `wait: true` would override); nothing, and says so,
// when it already waits or health-checks the trigger.
func TestRuntimeCRDSamePassProviderWait(t *testing.T) {
	tree := func(cdiSpec ...string) map[string]string {
		return map[string]string{tierFile("cdi"): tier("cdi", "./cdi", true, cdiSpec...), "cdi/cdi.yaml": cdiObj(), "cdi/sp.yaml": storageProfile("fast"),
			"cdi/cm.yaml": configMap("default", "probe")}
	}
	const lead = "Move StorageProfile.cdi.kubevirt.io/fast (cdi/sp.yaml:2) to a new Kustomization that dependsOn flux-system/cdi"
	const newKS = "  # the new Kustomization, e.g. flux-system/cdi-storageprofiles, with the same sourceRef and a path holding sp.yaml\n  spec:\n    dependsOn:\n      - name: cdi"
	env := &Env{Catalog: NewCatalog(nil), Strict: true}
	for _, tc := range []struct {
		name, sugg string
		files      map[string]string
	}{
		{"neither wait nor healthChecks", lead + ", and set `wait: true` on flux-system/cdi (clusters/dev/cdi.yaml:2), so that it is applied only once CDI.cdi.kubevirt.io/cdi is Ready. " + cdiWhy +
			"\n  # Kustomization flux-system/cdi\n  spec:\n    wait: true\n" + newKS, tree()},
		{"healthChecks without the CDI", lead + ", and add a healthCheck for CDI.cdi.kubevirt.io/cdi to the healthChecks of flux-system/cdi (clusters/dev/cdi.yaml:2), so that it is applied only once CDI.cdi.kubevirt.io/cdi is Ready. " + cdiWhy +
			"\n  # Kustomization flux-system/cdi\n  spec:\n    healthChecks:\n      - apiVersion: cdi.kubevirt.io/v1beta1\n        kind: CDI\n        name: cdi\n" + newKS,
			tree("healthChecks:", "  - apiVersion: v1", "    kind: ConfigMap", "    name: probe", "    namespace: default")},
		{"negative: wait already set", lead + ", so that it is applied only once CDI.cdi.kubevirt.io/cdi is Ready. flux-system/cdi already has `wait: true`, so it is Ready only once CDI.cdi.kubevirt.io/cdi is healthy, and its dependents start after that.\n" + newKS,
			tree("wait: true")},
		{"negative: a healthCheck on the CDI", lead + ", so that it is applied only once CDI.cdi.kubevirt.io/cdi is Ready. flux-system/cdi already has a healthCheck on CDI.cdi.kubevirt.io/cdi, so it is Ready only once CDI.cdi.kubevirt.io/cdi is healthy, and its dependents start after that.\n" + newKS,
			tree("healthChecks:", "  - apiVersion: cdi.kubevirt.io/v1beta1", "    kind: CDI", "    name: cdi")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			got := stateRule(t, "runtime-crd-same-pass")(c, nil, env)
			if len(got) != 1 || got[0].Suggestion != tc.sugg {
				t.Fatalf("got %s\nwant one finding with suggestion:\n%s", dump(got), tc.sugg)
			}
		})
	}
}
