package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// Render records, per substituted object, the fields substitution wrote from a Secret
// variable (values of any length, keys, names, nested and chained operators) with their
// literal and Secret-derived parts, and the string fields substitution turned into another
// type, at their path after substitution.
func TestSecretFieldsAndTypeChanges(t *testing.T) {
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/tiers.yaml": ks("config", "./config") + "---\n" +
			ks("apps", "./apps", "dependsOn: [{name: config}]", "postBuild:", "  substitute:", "    PORT: \"8080\"", "    ON: \"yes\"", "    EMPTY: \"\"", "    quote: '\"'",
				"  substituteFrom:", "    - kind: Secret", "      name: short"),
		// ONE "1", AB "ab", TOKEN "hunter2".
		"config/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: short, namespace: flux-system}\ndata: {ONE: MQ==, AB: YWI=, TOKEN: aHVudGVyMg==}\n",
		"apps/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${AB}-app
  namespace: default
  labels:
    k-${AB}: v
data:
  one: "${ONE}"
  port: "${PORT}"
  on: "${ON}"
  url: "http://${AB}:${PORT}/x"
  nested: ${UNSET:=${AB^^}}
  chain: ${UNSET:-${TOKEN/hunter/x}}
  prefix: ${UNSET:-pre-${TOKEN:0:3}}
  plain: ${PORT:-${AB}}
  quoted: ${quote}${PORT}${quote}
  text: "1 ab"
`,
	}))
	apps := render(t, dir, nil).Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if apps.Err != nil {
		t.Fatal(apps.Err)
	}
	o := apps.Objects[0]
	sec := func(s string) graph.TextPart { return graph.TextPart{Text: s, Secret: true} }
	lit := func(s string) graph.TextPart { return graph.TextPart{Text: s} }
	wantFields := []graph.SecretField{
		{Path: []string{"data", "chain"}, Parts: []graph.TextPart{sec("x2")}},
		{Path: []string{"data", "nested"}, Parts: []graph.TextPart{sec("AB")}},
		{Path: []string{"data", "one"}, Parts: []graph.TextPart{sec("1")}},
		{Path: []string{"data", "prefix"}, Parts: []graph.TextPart{lit("pre-"), sec("hun")}},
		{Path: []string{"data", "url"}, Parts: []graph.TextPart{lit("http://"), sec("ab"), lit(":8080/x")}},
		{Path: []string{"metadata", "labels", "k-ab"}, Key: true, Parts: []graph.TextPart{lit("k-"), sec("ab")}},
		{Path: []string{"metadata", "name"}, Parts: []graph.TextPart{sec("ab"), lit("-app")}},
	}
	if d := cmp.Diff(wantFields, o.SecretFields); d != "" {
		t.Errorf("SecretFields (-want +got):\n%s", d)
	}
	wantTypes := []graph.TypeChange{
		{Path: []string{"data", "on"}, Vars: []string{"ON"}, Type: "boolean", Value: "true"},
		{Path: []string{"data", "one"}, Vars: []string{"ONE"}, Type: "integer"},
		{Path: []string{"data", "plain"}, Vars: []string{"PORT", "AB"}, Type: "integer"},
		{Path: []string{"data", "port"}, Vars: []string{"PORT"}, Type: "integer", Value: "8080"},
	}
	if d := cmp.Diff(wantTypes, o.TypeChanges); d != "" {
		t.Errorf("TypeChanges (-want +got):\n%s", d)
	}
	// The quote variables of kustomize-controller's docs keep a number a string.
	if got := o.Body.Object["data"].(map[string]any)["quoted"]; got != "8080" {
		t.Errorf("data.quoted = %#v, want the string \"8080\"", got)
	}
}
