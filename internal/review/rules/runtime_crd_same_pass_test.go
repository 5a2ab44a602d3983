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
					"so that it is applied only once CDI.cdi.kubevirt.io/cdi is Ready:\n  # Kustomization flux-system/cdi\n  spec:\n    wait: true\n" +
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
