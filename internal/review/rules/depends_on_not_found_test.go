package rules

import (
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/render/graph"
)

func TestDependsOnNotFound(t *testing.T) {
	infra := map[string]string{
		tierFile("infra"): tier("infra", "./infra", true),
		"infra/cm.yaml":   configMap("default", "infra"),
		"apps/cm.yaml":    configMap("default", "apps"),
	}
	appsOn := func(names ...string) map[string]string {
		return merge(infra, map[string]string{tierFile("apps"): tier("apps", "./apps", true, dependsOn(names...)...)})
	}
	notFound := func(sev Severity, dep string, line int) want {
		return want{
			Rule: "depends-on-not-found", Severity: sev, Kustomization: "flux-system/apps",
			File: tierFile("apps"), Line: line,
			Msg:  []string{"Kustomization flux-system/apps dependsOn flux-system/" + dep + ", which is not in the cluster"},
			Sugg: []string{"Remove `- name: " + dep + "` from spec.dependsOn of flux-system/apps"},
		}
	}
	cases := []struct {
		name   string
		files  map[string]string
		other  map[string]string // the cluster at the other commit; nil for none
		broken []string
		bug    string
		want   []want
	}{
		{
			name:  "all dependencies exist",
			files: appsOn("infra"),
		},
		{
			name:  "missing dependency",
			files: appsOn("x"),
			want:  []want{notFound(Error, "x", 14)},
		},
		{
			name:  "missing dependency after an existing one",
			files: appsOn("infra", "x"),
			want:  []want{notFound(Error, "x", 15)},
		},
		{
			name: "missing dependency whose name is part of an earlier entry",
			files: merge(appsOn("infra-crds", "infra"), map[string]string{
				tierFile("infra"):      "",
				tierFile("infra-crds"): tier("infra-crds", "./infra", true),
			}),
			want: []want{notFound(Error, "infra", 15)},
		},
		{
			name:  "renamed tier with the same path in the other commit",
			files: merge(appsOn("infra"), map[string]string{tierFile("infra"): tier("infra-v2", "./infra", true)}),
			other: appsOn("infra"),
			want: []want{{
				Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/apps",
				File: tierFile("apps"), Line: 14,
				Msg:  []string{"flux-system/infra was renamed to flux-system/infra-v2 (same path)"},
				Sugg: []string{"In clusters/dev/apps.yaml, replace `- name: infra` with `- name: infra-v2` in spec.dependsOn."},
			}},
		},
		{
			name:  "renamed tier whose path is spelled differently",
			files: merge(appsOn("infra"), map[string]string{tierFile("infra"): tier("infra-v2", "infra/", true)}),
			other: appsOn("infra"),
			want: []want{{
				Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/apps",
				File: tierFile("apps"), Line: 14,
				Sugg: []string{"replace `- name: infra` with `- name: infra-v2`"},
			}},
		},
		{
			name:  "other commit without the dependency",
			files: merge(appsOn("infra"), map[string]string{tierFile("infra"): tier("infra-v2", "./infra", true)}),
			other: map[string]string{tierFile("apps"): tier("apps", "./apps", true), "apps/cm.yaml": configMap("default", "apps")},
			want:  []want{notFound(Error, "infra", 14)},
		},
		{
			name: "warning when part of the graph fails to build",
			files: merge(appsOn("x"), map[string]string{
				tierFile("broken"): tier("broken", "./nowhere", true),
			}),
			broken: []string{"broken"},
			want: []want{{
				Rule: "depends-on-not-found", Severity: Warning, Kustomization: "flux-system/apps", File: tierFile("apps"), Line: 14,
				Msg: []string{"Kustomization flux-system/apps dependsOn flux-system/x, which is not in the cluster: it will wait forever with 'dependency flux-system/x not found'. " +
					"Not certain: Kustomization flux-system/broken (fails to build) may create it."},
			}},
		},
		{
			// A chart renders into its release namespace: one of namespace cert-manager
			// cannot create the Kustomization flux-system/x (the predicate of health-check-not-found).
			name:  "error when a chart of another namespace is not rendered",
			files: merge(appsOn("x"), map[string]string{"infra/hr.yaml": remoteRelease("cert-manager", "cert-manager", "")}),
			want: []want{{
				Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/apps", File: tierFile("apps"), Line: 14,
				Msg: []string{"Kustomization flux-system/apps dependsOn flux-system/x, which is not in the cluster: it will wait forever with 'dependency flux-system/x not found'."},
			}},
		},
		{
			name:  "warning when a chart released into the dependency's namespace is not rendered",
			files: merge(appsOn("x"), map[string]string{"infra/hr.yaml": remoteRelease("tools", "kustomizations", "flux-system")}),
			want: []want{{
				Rule: "depends-on-not-found", Severity: Warning, Kustomization: "flux-system/apps", File: tierFile("apps"), Line: 14,
				Msg: []string{"'dependency flux-system/x not found'. Not certain: HelmRelease tools/kustomizations (chart not rendered) may create it."},
			}},
		},
		{
			// The base had the dependency and the PR renamed it: certain, whatever is unknown.
			name: "renamed tier while part of the graph fails to build: still an error",
			files: merge(appsOn("infra"), map[string]string{
				tierFile("infra"):  tier("infra-v2", "./infra", true),
				tierFile("broken"): tier("broken", "./nowhere", true),
			}),
			other:  appsOn("infra"),
			broken: []string{"broken"},
			want: []want{{
				Rule: "depends-on-not-found", Severity: Error, Kustomization: "flux-system/apps", File: tierFile("apps"), Line: 14,
				Msg: []string{"Kustomization flux-system/apps dependsOn flux-system/infra, which is not in the cluster: it will wait forever with 'dependency flux-system/infra not found'. " +
					"flux-system/infra was renamed to flux-system/infra-v2 (same path)."},
			}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.bug != "" {
				t.Skip("BUG: " + tc.bug)
			}
			files := map[string]string{}
			for k, v := range tc.files {
				if v != "" { // "" deletes a file of the merged fixture
					files[k] = v
				}
			}
			c := renderTree(t, files)
			checkBuilt(t, c, tc.broken...)
			var other *graph.Cluster
			if tc.other != nil {
				other = renderTree(t, tc.other)
				checkBuilt(t, other)
			}
			checkFindings(t, stateRule(t, "depends-on-not-found")(c, other, testEnv()), tc.want)
		})
	}
}

func TestDependsOnNotFoundInWrongNamespace(t *testing.T) {
	c := renderTree(t, map[string]string{
		tierFile("infra"): tier("infra", "./infra", true),
		"infra/cm.yaml":   configMap("default", "infra"),
		tierFile("apps"): strings.Replace(tier("apps", "./apps", true, dependsOn("infra")...),
			"namespace: flux-system\n", "namespace: team-a\n", 1),
		"apps/cm.yaml": configMap("default", "apps"),
	})
	fs := stateRule(t, "depends-on-not-found")(c, nil, testEnv())
	want := "In clusters/dev/apps.yaml, add `namespace: flux-system` under `- name: infra` in spec.dependsOn."
	if len(fs) != 1 || fs[0].Suggestion != want {
		t.Fatalf("findings %s, want suggestion %q", dump(fs), want)
	}
}

// remoteRelease is a HelmRelease ns/name of a chart from a HelmRepository, which the tests
// never fetch: its chart is not rendered. target is its spec.targetNamespace ("" for none).
func remoteRelease(ns, name, target string) string {
	spec := []string{"spec:"}
	if target != "" {
		spec = append(spec, "  targetNamespace: "+target)
	}
	spec = append(spec, "  chart:", "    spec:", "      chart: podinfo", "      sourceRef: {kind: HelmRepository, name: podinfo}", "  interval: 10m")
	return obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", ns, name, spec...)
}
