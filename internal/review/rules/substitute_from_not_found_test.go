package rules

import "testing"

// TestSubstituteFromNotFound: a substituteFrom ConfigMap (not optional) that the base graph
// provides and the head graph does not (renamed) fails kustomize-controller's loadVars: an
// error at the entry's name line when its provider prunes it, a warning when none does. A
// kept or optional entry, one neither commit renders (in the cluster only) and a suspended
// Kustomization are no finding.
func TestSubstituteFromNotFound(t *testing.T) {
	apps := func(extra ...string) string {
		return tier("apps", "./apps", true, append([]string{"postBuild:", "  substituteFrom:", "    - kind: ConfigMap", "      name: cluster-vars"}, extra...)...)
	}
	files := func(ks, vars string, prune bool) map[string]string {
		f := map[string]string{tierFile("apps"): ks, "apps/web.yaml": configMap("default", "web", "data:", "  name: ${cluster_name}"),
			tierFile("config"): tier("config", "./config", prune), "config/other.yaml": configMap("flux-system", "other")}
		if vars != "" {
			f["config/vars.yaml"] = configMap("flux-system", vars, "data:", "  cluster_name: dev")
		}
		return f
	}
	msg := func(effect string) string {
		return "Kustomization flux-system/apps substitutes variables from ConfigMap flux-system/cluster-vars (postBuild.substituteFrom, not optional), which the base commit has (from flux-system/config) and the change leaves nowhere in cluster dev; " +
			effect + ". kustomize-controller then fails the Kustomization with \"substitute from 'ConfigMap/cluster-vars' error: ... not found\" before applying anything, until the ConfigMap exists."
	}
	sugg := "Keep ConfigMap flux-system/cluster-vars in the repository, or point the substituteFrom entry of Kustomization flux-system/apps (clusters/dev/apps.yaml:16) at its new name, or mark it `optional: true` if every variable it gave has a default."
	cases := []struct {
		name       string
		base, head map[string]string
		want       []want
	}{
		{"renamed", files(apps(), "cluster-vars", true), files(apps(), "cluster-config", true),
			[]want{{Rule: "substitute-from-not-found", Severity: Error, Kustomization: "flux-system/apps", File: "clusters/dev/apps.yaml", Line: 16,
				Msg: []string{msg("Kustomization flux-system/config prunes it on every running cluster")}, Sugg: []string{sugg}}}},
		{"renamed without prune", files(apps(), "cluster-vars", false), files(apps(), "cluster-config", false),
			[]want{{Rule: "substitute-from-not-found", Severity: Warning, Kustomization: "flux-system/apps", File: "clusters/dev/apps.yaml", Line: 16,
				Msg: []string{msg("none of them prunes, so running clusters keep the old ConfigMap and only a cluster bootstrapped from this commit fails")}, Sugg: []string{sugg}}}},
		// Negative cases.
		{"kept", files(apps(), "cluster-vars", true), files(apps(), "cluster-vars", true), nil},
		{"optional", files(apps(), "cluster-vars", true), files(apps("      optional: true"), "cluster-config", true), nil},
		{"in the cluster only", files(apps(), "", true), files(apps(), "", true), nil},
		{"suspended", files(apps(), "cluster-vars", true), files(apps("suspend: true"), "cluster-config", true), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderTree(t, tc.base), renderTree(t, tc.head)
			checkFindings(t, changeRule(t, "substitute-from-not-found")(base, head, testEnv()), tc.want)
		})
	}
}
