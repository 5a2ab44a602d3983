package rules

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInvalidName: a name the API server refuses for the object's kind fails the dry-run
// of the whole Kustomization; the finding is at metadata.name and names the variables.
func TestInvalidName(t *testing.T) {
	apps := func(vars map[string]string, files map[string]string) map[string]string {
		extra := []string{"postBuild:", "  substitute:"}
		for k, v := range vars {
			extra = append(extra, "    "+k+": \""+v+"\"")
		}
		return merge(map[string]string{tierFile("apps"): tier("apps", "./apps", true, extra...)}, files)
	}
	long64 := strings.Repeat("a", 64)
	long254 := strings.Repeat("b", 254)
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{
			name:  "uppercase and underscore after substitution",
			files: apps(map[string]string{"APP": "My_App"}, map[string]string{"apps/cm.yaml": "# settings\n" + configMap("default", "${APP}-x")}),
			want: []want{{Rule: "invalid-name", Severity: Error, Kustomization: "flux-system/apps", Object: "ConfigMap/default/My_App-x",
				File: "apps/cm.yaml", Line: 5,
				Msg:  []string{`ConfigMap/default/My_App-x is named "My_App-x" (metadata.name "${APP}-x" after postBuild substitution of ${APP}), which the API server refuses for a ConfigMap (a DNS-1123 subdomain): a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'); kustomize-controller's dry-run of flux-system/apps fails and applies nothing on every reconcile.`},
				Sugg: []string{"Give APP a value that makes a valid name (in postBuild.substitute or the substituteFrom source of flux-system/apps), or change metadata.name at apps/cm.yaml:5."}}},
		},
		{
			name: "a Namespace over 63 characters, a ConfigMap of the same name is valid",
			files: apps(map[string]string{"APP": long64}, map[string]string{
				"apps/ns.yaml": namespaceObj("${APP}"), "apps/cm.yaml": configMap("default", "${APP}")}),
			want: []want{{Rule: "invalid-name", Severity: Error, Kustomization: "flux-system/apps", Object: "Namespace/" + long64,
				File: "apps/ns.yaml", Line: 4,
				Msg: []string{`which the API server refuses for a Namespace (a DNS-1123 label): must be no more than 63 characters;`}}},
		},
		{
			name:  "a ConfigMap over 253 characters",
			files: apps(map[string]string{"APP": long254}, map[string]string{"apps/cm.yaml": configMap("default", "${APP}")}),
			want: []want{{Rule: "invalid-name", Severity: Error, Kustomization: "flux-system/apps", Object: "ConfigMap/default/" + long254,
				File: "apps/cm.yaml", Line: 4,
				Msg: []string{`is named "` + long254 + `" (254 characters) (metadata.name "${APP}"`, "must be no more than 253 characters"}}},
		},
		{
			name:  "a Service name starting with a digit, no variable",
			files: apps(map[string]string{"APP": "web"}, map[string]string{"apps/svc.yaml": obj("v1", "Service", "default", "1web", "spec:", "  ports: [{port: 80}]")}),
			want: []want{{Rule: "invalid-name", Severity: Error, Kustomization: "flux-system/apps", Object: "Service/default/1web",
				File: "apps/svc.yaml", Line: 4,
				Msg:  []string{`is named "1web", which the API server refuses for a Service (a DNS-1035 label): a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character`},
				Sugg: []string{"Change metadata.name at apps/svc.yaml:4 (or the namePrefix/nameSuffix of flux-system/apps) to a valid name."}}},
		},
		{
			name:  "an empty name from a default",
			files: apps(map[string]string{"APP": "web"}, map[string]string{"apps/cm.yaml": configMap("default", "${NAME:=}")}),
			want: []want{{Rule: "invalid-name", Severity: Error, Kustomization: "flux-system/apps", Object: "ConfigMap/default/",
				File: "apps/cm.yaml", Line: 4, Msg: []string{`is named "" (metadata.name "${NAME:=}" after postBuild substitution of ${NAME}), which the API server refuses for a ConfigMap (a DNS-1123 subdomain): the name is empty;`}}},
		},
		{
			name: "a chart object: at the HelmRelease, naming the template",
			files: merge(apps(map[string]string{"APP": "web"}, map[string]string{"apps/hr.yaml": helmRelease("apps", "podinfo", "podinfo")}),
				chart("podinfo", map[string]string{"templates/cm.yaml": configMap("", "Bad_Name")})),
			want: []want{{Rule: "invalid-name", Severity: Error, Kustomization: "flux-system/apps", Object: "ConfigMap/apps/Bad_Name",
				File: "apps/hr.yaml", Line: 2,
				Msg:  []string{`ConfigMap/apps/Bad_Name is named "Bad_Name", which the API server refuses for a ConfigMap (a DNS-1123 subdomain):`, "; helm-controller's install or upgrade of HelmRelease apps/podinfo fails (chart template podinfo/templates/cm.yaml) on every reconcile."},
				Sugg: []string{"Change the name the chart template podinfo/templates/cm.yaml renders (its values in HelmRelease apps/podinfo, or the release name it derives from)."}}},
		},
		{
			name: "valid names: an RBAC Role with uppercase and colon and a 63-character Namespace",
			files: apps(map[string]string{"APP": strings.Repeat("c", 63)}, map[string]string{
				"apps/role.yaml": obj("rbac.authorization.k8s.io/v1", "Role", "default", "Pod:Reader", "rules: []"),
				"apps/ns.yaml":   namespaceObj("${APP}"), "apps/cm.yaml": configMap("default", "${APP}-settings")}),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "invalid-name")(c, nil, testEnv()), tc.want)
		})
	}
}

func TestVariablesIn(t *testing.T) {
	got := variablesIn("${A}-${B:=x}-$${C}-${A^^}")
	if diff := cmp.Diff([]string{"A", "B"}, got); diff != "" {
		t.Errorf("variablesIn (-want +got):\n%s", diff)
	}
}
