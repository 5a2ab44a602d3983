package rules

import "testing"

// TestUnsubstitutedInDocumentation: ${VAR} inside a CRD schema or a description annotation
// is documentation shipped literally, not a forgotten substitution.
func TestUnsubstitutedInDocumentation(t *testing.T) {
	crd := func(namesKind string) string {
		return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: ` + namesKind + `
    plural: widgets
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          description: 'Templates may use ${NAMESPACE} and ${APP}.'
          properties:
            url:
              type: string
              default: https://${HOST}/
`
	}
	apps := func(file, body string) map[string]string {
		return map[string]string{tierFile("apps"): tier("apps", "./apps", true), "apps/" + file: body}
	}
	literal := func(object, file string, line int, msg string) want {
		return want{Rule: "unsubstituted-variable", Severity: Warning, Kustomization: "flux-system/apps", Object: object,
			File: file, Line: line, Msg: []string{msg}, Sugg: []string{"Add spec.postBuild.substitute (or substituteFrom) to flux-system/apps"}}
	}
	crdID := "CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com"
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{name: "CRD schema description and default", files: apps("crd.yaml", crd("Widget"))},
		{
			name:  "CRD field outside the schema",
			files: apps("crd.yaml", crd("${KIND}")),
			want:  []want{literal(crdID, "apps/crd.yaml", 8, crdID+" contains ${KIND}, but flux-system/apps has no postBuild")},
		},
		{
			name: "description annotations",
			files: apps("cm.yaml", configMap("default", "cm", "  annotations:", "    description: uses ${DOMAIN}",
				"    example.com/description: see ${DOCS}", "data:", "  key: value")),
		},
		{
			name: "other annotation",
			files: apps("cm.yaml", configMap("default", "cm", "  annotations:", "    example.com/url: https://${DOMAIN}",
				"    description: uses ${DOCS}", "data:", "  key: value")),
			want: []want{literal("ConfigMap/default/cm", "apps/cm.yaml", 7, "ConfigMap/default/cm contains ${DOMAIN}, but")},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "unsubstituted-variable")(c, nil, testEnv()), tc.want)
		})
	}
}
