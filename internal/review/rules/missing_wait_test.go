package rules

import "testing"

func TestMissingWait(t *testing.T) {
	vms := map[string]string{
		tierFile("vms"): tier("vms", "./vms", true, dependsOn("cdi")...),
		"vms/sp.yaml":   storageProfile("fast"),
		"cdi/cdi.yaml":  cdiObj(),
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{
			name:  "CDI tier without wait",
			files: merge(vms, map[string]string{tierFile("cdi"): tier("cdi", "./cdi", true)}),
			want: []want{{
				Rule: "missing-wait", Severity: Warning, Kustomization: "flux-system/vms",
				Object: "StorageProfile.cdi.kubevirt.io/fast", File: "vms/sp.yaml", Line: 2,
				Msg: []string{"flux-system/vms comes after flux-system/cdi",
					"flux-system/cdi has neither `wait: true` nor a healthCheck on its cdi.kubevirt.io/CDI"},
				Sugg: []string{"Set `wait: true` on Kustomization flux-system/cdi"},
			}},
		},
		{
			name: "CDI tier reached transitively without wait",
			files: merge(vms, map[string]string{
				tierFile("cdi"): tier("cdi", "./cdi", true),
				tierFile("mid"): tier("mid", "./mid", true, dependsOn("cdi")...),
				"mid/cm.yaml":   configMap("default", "mid"),
				tierFile("vms"): tier("vms", "./vms", true, dependsOn("mid")...),
			}),
			want: []want{{
				Rule: "missing-wait", Severity: Warning, Kustomization: "flux-system/vms",
				Object: "StorageProfile.cdi.kubevirt.io/fast", File: "vms/sp.yaml", Line: 2,
			}},
		},
		{
			name: "CDI in the parent tier: the child reconciles before the CRD exists, wait or not",
			files: map[string]string{
				tierFile("cdi"):   tier("cdi", "./cdi", true, "wait: true"),
				"cdi/cdi.yaml":    cdiObj(),
				"cdi/vms-ks.yaml": tier("vms", "./vms", true),
				"vms/sp.yaml":     storageProfile("fast"),
			},
			want: []want{{
				Rule: "missing-wait", Severity: Warning, Kustomization: "flux-system/vms",
				Object: "StorageProfile.cdi.kubevirt.io/fast", File: "vms/sp.yaml", Line: 2,
				Msg:  []string{"flux-system/vms is created by its ancestor flux-system/cdi, which holds the cdi.kubevirt.io/CDI"},
				Sugg: []string{"Move the cdi.kubevirt.io/CDI out of flux-system/cdi into a Kustomization with `wait: true`"},
			}},
		},
		{
			name:  "CDI tier with wait",
			files: merge(vms, map[string]string{tierFile("cdi"): tier("cdi", "./cdi", true, "wait: true")}),
		},
		{
			name: "CDI tier with a healthCheck on kind CDI",
			files: merge(vms, map[string]string{tierFile("cdi"): tier("cdi", "./cdi", true,
				"healthChecks:", "  - apiVersion: cdi.kubevirt.io/v1beta1", "    kind: CDI", "    name: cdi")}),
		},
		{
			name: "no dependsOn path: missing-depends-on reports it instead",
			files: merge(vms, map[string]string{
				tierFile("cdi"): tier("cdi", "./cdi", true),
				tierFile("vms"): tier("vms", "./vms", true),
			}),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "missing-wait")(c, nil, testEnv()), tc.want)
		})
	}
}
