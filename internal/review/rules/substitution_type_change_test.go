package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSubstitutionTypeChange substitutes numbers and booleans into string fields: an error
// at the field's line where the type is string (a label, ConfigMap data quoted or not, a
// container's env value), with the value when it is not a Secret's; a warning where the
// manifest quotes the expression in a field of unknown type; nothing for an unquoted
// expression in such a field (replicas), for text around the expression, or for the quote
// variables kustomize-controller's documentation suggests, which keep the string.
func TestSubstitutionTypeChange(t *testing.T) {
	c := renderTree(t, map[string]string{
		tierFile("secrets"): tier("secrets", "./secrets", true),
		tierFile("apps"): tier("apps", "./apps", true, "dependsOn: [{name: secrets}]", "postBuild:",
			"  substitute: {PORT: \"8080\", ON: \"true\", quote: '\"'}", "  substituteFrom: [{kind: Secret, name: creds}]"),
		"secrets/creds.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: flux-system}\nstringData: {PIN: \"1234\"}\n",
		"apps/app.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: default
  labels:
    port: "${PORT}"
data:
  port: ${PORT}
  pin: "${PIN}"
  ok: ${quote}${PORT}${quote}
  text: "port ${PORT}"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: ${PORT}
  template:
    spec:
      containers:
        - name: web
          image: nginx
          env:
            - name: DEBUG
              value: "${ON}"
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: w
  namespace: default
spec:
  enabled: '${ON}'
  count: ${PORT}
`,
	})
	got := stateRule(t, "substitution-type-change")(c, nil, testEnv())
	type finding struct {
		Severity            Severity
		Object, File        string
		Line                int
		Message, Suggestion string
	}
	var rows []finding
	for _, f := range got {
		rows = append(rows, finding{f.Severity, f.Object.String(), f.File, f.Line, f.Message, f.Suggestion})
	}
	const how = "Flux substitutes the object's YAML text and parses it again, so quotes around the expression do not survive; "
	typed := "the field holds strings only, so the server-side apply dry-run fails with 'expected string' and Flux applies none of flux-system/apps."
	fix := func(v string) string {
		return "Write the quotes through a variable, as kustomize-controller's documentation does: `${quote}${" + v + "}${quote}` with `quote: '\"'` in postBuild.substitute of flux-system/apps. " +
			"Quoting the expression in the manifest (`\"${" + v + "}\"`, `'${" + v + "}'`) or a default (`${" + v + ":=…}`) does not help: the quotes are gone before substitution."
	}
	want := []finding{
		{Error, "ConfigMap/default/settings", "apps/app.yaml", 10, "data.pin of ConfigMap/default/settings becomes an integer after postBuild substitution of ${PIN}: " + how + typed, fix("PIN")},
		{Error, "ConfigMap/default/settings", "apps/app.yaml", 9, "data.port of ConfigMap/default/settings becomes the integer 8080 after postBuild substitution of ${PORT}: " + how + typed, fix("PORT")},
		{Error, "ConfigMap/default/settings", "apps/app.yaml", 7, "metadata.labels.port of ConfigMap/default/settings becomes the integer 8080 after postBuild substitution of ${PORT}: " + how + typed, fix("PORT")},
		{Error, "Deployment.apps/default/web", "apps/app.yaml", 28, "spec.template.spec.containers[0].env[0].value of Deployment.apps/default/web becomes the boolean true after postBuild substitution of ${ON}: " + how + typed, fix("ON")},
		{Warning, "Widget.example.com/default/w", "apps/app.yaml", 36, "spec.enabled of Widget.example.com/default/w becomes the boolean true after postBuild substitution of ${ON}: " + how +
			"the API server refuses the object if the field's schema wants a string, and otherwise stores a boolean where the manifest meant a string.", fix("ON")},
	}
	if d := cmp.Diff(want, rows); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	// The API server refuses the ConfigMap and the Deployment for these fields: this rule
	// says why, at the field, so invalid-spec does not report them again.
	if got := stateRule(t, "invalid-spec")(c, nil, testEnv()); len(got) != 0 {
		t.Errorf("invalid-spec reports %s", dump(got))
	}
}
