package rules

import "testing"

// TestMissingDependsOnParentWaits: apps (wait: true) creates web; web needs the Namespace
// that config provides, and config dependsOn apps. The edge web -> config would deadlock
// (apps waits for web, web for config, config for apps), so it is not suggested.
func TestMissingDependsOnParentWaits(t *testing.T) {
	files := func(parent ...string) map[string]string {
		return map[string]string{
			tierFile("apps"):   tier("apps", "./apps", true, parent...),
			tierFile("config"): tier("config", "./config", true, dependsOn("apps")...),
			"config/ns.yaml":   namespaceObj("web"),
			"apps/web.yaml":    tier("web", "./web", true),
			"web/cm.yaml":      configMap("web", "settings"),
		}
	}
	need := "ConfigMap/web/settings in flux-system/web needs Namespace web from flux-system/config, but flux-system/web has no dependsOn path to flux-system/config: on a cold cluster its apply fails until they exist."
	cases := []struct {
		name   string
		parent []string
		want   []want
	}{
		{
			name:   "parent waits",
			parent: []string{"wait: true"},
			want: []want{{Rule: "missing-depends-on", Severity: Error, Kustomization: "flux-system/web", Object: "ConfigMap/web/settings",
				File: "web/cm.yaml", Line: 2,
				Msg:  []string{need + " flux-system/apps waits for flux-system/web to become Ready (wait or healthChecks), and flux-system/config cannot become Ready before flux-system/apps does, so a dependsOn edge to flux-system/config would deadlock."},
				Sugg: []string{"Move ConfigMap/web/settings into flux-system/config (or a tier after it), move Namespace web into flux-system/apps or a tier flux-system/apps does not wait for, or let flux-system/apps not wait for flux-system/web (wait: false, healthChecks without it)."}}},
		},
		{
			name:   "parent health-checks the child",
			parent: []string{"healthChecks:", "  - apiVersion: kustomize.toolkit.fluxcd.io/v1", "    kind: Kustomization", "    name: web"},
			want: []want{{Rule: "missing-depends-on", Severity: Error, Kustomization: "flux-system/web", Object: "ConfigMap/web/settings",
				File: "web/cm.yaml", Line: 2, Msg: []string{"so a dependsOn edge to flux-system/config would deadlock."}}},
		},
		{
			name: "parent does not wait",
			want: []want{{Rule: "missing-depends-on", Severity: Error, Kustomization: "flux-system/web", Object: "ConfigMap/web/settings",
				File: "web/cm.yaml", Line: 2, Msg: []string{need},
				Sugg: []string{"Set in Kustomization flux-system/web (apps/web.yaml:6):\n  dependsOn:\n    - name: config"}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, files(tc.parent...))
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "missing-depends-on")(c, nil, testEnv()), tc.want)
		})
	}
}
