package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// relayChild is the manifest both relay children build: every transform of X, and an
// object named from it.
const relayChild = `apiVersion: v1
kind: ConfigMap
metadata: {name: relay, namespace: default}
data:
  lower: ${X,,}
  upper: ${X^^}
  tail: ${X:4}
  short: ${Y^^}
  plain: ${P}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: r-${X,,}
  namespace: default
data: {a: b}
`

// TestSecretTaintRelays: a value substitution wrote from a Secret stays Secret-derived
// when a parent writes it into a child Kustomization's postBuild.substitute, or into a
// ConfigMap a child reads with substituteFrom (hostile2 n-relay, n-relaycm): the child's
// transforms of it are recorded as Secret-derived fields and values.
func TestSecretTaintRelays(t *testing.T) {
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/tiers.yaml": ks("config", "./config") + "---\n" +
			ks("apps", "./apps", "dependsOn: [{name: config}]", "postBuild:", "  substituteFrom:", "    - kind: Secret", "      name: cluster-secrets"),
		"config/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: cluster-secrets, namespace: flux-system}\nstringData: {TOK: Zq8wLk3vPx, SH: kx7}\n",
		"apps/children.yaml": ks("inline", "./child", "postBuild:", "  substitute:", "    X: \"${TOK}\"", "    Y: \"${SH}\"", "    P: plain-text") + "---\n" +
			ks("fromcm", "./child", "postBuild:", "  substitute: {P: plain-text}", "  substituteFrom:", "    - kind: ConfigMap", "      name: relay-vars") + "---\n" +
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: relay-vars, namespace: flux-system}\ndata:\n  X: \"${TOK}\"\n  Y: \"${SH}\"\n",
		"child/cm.yaml": relayChild,
	}))
	c := render(t, dir, nil).Cluster("dev")
	sec := func(s string) graph.TextPart { return graph.TextPart{Text: s, Secret: true} }
	lit := func(s string) graph.TextPart { return graph.TextPart{Text: s} }
	want := [][]graph.SecretField{
		{
			{Path: []string{"data", "lower"}, Parts: []graph.TextPart{sec("zq8wlk3vpx")}},
			{Path: []string{"data", "short"}, Parts: []graph.TextPart{sec("KX7")}},
			{Path: []string{"data", "tail"}, Parts: []graph.TextPart{sec("Lk3vPx")}},
			{Path: []string{"data", "upper"}, Parts: []graph.TextPart{sec("ZQ8WLK3VPX")}},
		},
		{{Path: []string{"metadata", "name"}, Parts: []graph.TextPart{lit("r-"), sec("zq8wlk3vpx")}}},
	}
	wantValues := [][]string{{"ZQ8WLK3VPX", "Zq8wLk3vPx", "zq8wlk3vpx", "Lk3vPx", "kx7"}, {"Zq8wLk3vPx", "zq8wlk3vpx", "kx7"}}
	for _, name := range []string{"inline", "fromcm"} {
		k := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: name}]
		if k == nil || k.Err != nil || len(k.Objects) != 2 {
			t.Fatalf("%s: %+v", name, k)
		}
		for i, o := range k.Objects {
			if d := cmp.Diff(want[i], o.SecretFields); d != "" {
				t.Errorf("%s %s SecretFields (-want +got):\n%s", name, o.ID, d)
			}
			if d := cmp.Diff(wantValues[i], o.SecretValues); d != "" {
				t.Errorf("%s %s SecretValues (-want +got):\n%s", name, o.ID, d)
			}
		}
	}
	// Negative: the literal P is no Secret's, though it sits next to tainted variables.
	k := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "inline"}]
	if v := k.Objects[0].Body.Object["data"].(map[string]any)["plain"]; v != "plain-text" {
		t.Errorf("data.plain = %#v", v)
	}
}

// TestSpecSecretsReachBuiltObjects: short Secret values a parent substitutes into a
// child's namePrefix, nameSuffix, images and inline patches are
// Secret-derived where the child's build writes them (hostile2 n-childspec), whatever
// their length; literal text of the same objects is not. commonMetadata is applied at
// apply time (fluxcd/pkg ssa SetCommonMetadata), which render does not model: the label
// stays out of the object.
func TestSpecSecretsReachBuiltObjects(t *testing.T) {
	child := ks("child", "./child", "namePrefix: ${SH}-", "nameSuffix: -${S2}",
		"commonMetadata: {labels: {team: \"${SH}\"}}", "images: [{name: nginx, newTag: \"${SH}\"}]",
		"patches:", "  - target: {kind: ConfigMap}", "    patch: |", "      - {op: add, path: /data/injected, value: v-${SH}}")
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/tiers.yaml": ks("config", "./config") + "---\n" +
			ks("apps", "./apps", "dependsOn: [{name: config}]", "postBuild:", "  substituteFrom:", "    - kind: Secret", "      name: cluster-secrets"),
		"config/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: cluster-secrets, namespace: flux-system}\nstringData: {SH: kx7, S2: jw}\n",
		"apps/child.yaml":    child,
		"child/cm.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain, namespace: default}\ndata: {a: b, lit: kept}\n",
	}))
	k := render(t, dir, nil).Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "child"}]
	if k == nil || k.Err != nil || len(k.Objects) != 1 {
		t.Fatalf("child: %+v", k)
	}
	o := k.Objects[0]
	if o.ID.Name != "kx7-plain-jw" {
		t.Fatalf("built %s", o.ID)
	}
	sec := func(s string) graph.TextPart { return graph.TextPart{Text: s, Secret: true} }
	lit := func(s string) graph.TextPart { return graph.TextPart{Text: s} }
	want := []graph.SecretField{
		{Path: []string{"data", "injected"}, Parts: []graph.TextPart{lit("v-"), sec("kx7")}},
		{Path: []string{"metadata", "name"}, Parts: []graph.TextPart{sec("kx7"), lit("-plain-"), sec("jw")}},
	}
	if d := cmp.Diff(want, o.SecretFields); d != "" {
		t.Errorf("SecretFields (-want +got):\n%s", d)
	}
}
