package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// A ConfigMap key written by hand equal to a Secret value of the cluster (4 bytes or
// more, not word-shaped, as MarkBuildSecrets decides) is a copy of it: a child reading
// the ConfigMap through substituteFrom gets it as a Secret variable, so ${CMV^^} and
// ${CMV:0:6} are Secret fields (hostile5 xb). Negatives: a word-shaped copy ("monitoring")
// and a 3-byte one ("kx7") equal Secret values too but are taken for the text, and a
// value no Secret holds stays plain.
func TestPlainSecretCopiesRelay(t *testing.T) {
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/tiers.yaml": ks("config", "./config") + "---\n" +
			ks("x1", "./x1", "dependsOn: [{name: config}]", "postBuild:", "  substituteFrom:", "    - kind: ConfigMap", "      name: vars"),
		"config/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: flux-system}\nstringData: {password: Rk7headzpw, ns: monitoring, sh: kx7}\n---\n" +
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vars, namespace: flux-system}\ndata: {CMV: Rk7headzpw, W: monitoring, S: kx7, P: plainvalue9}\n",
		"x1/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n" +
			"data: {up: \"${CMV^^}\", part: \"${CMV:0:6}\", w: \"${W^^}\", s: \"${S^^}\", p: \"${P^^}\"}\n",
	}))
	k := render(t, dir, nil).Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "x1"}]
	if k == nil || k.Err != nil || len(k.Objects) != 1 {
		t.Fatalf("x1: %+v", k)
	}
	o := k.Objects[0]
	want := []graph.SecretField{
		{Path: []string{"data", "part"}, Parts: []graph.TextPart{{Text: "Rk7hea", Secret: true}}},
		{Path: []string{"data", "up"}, Parts: []graph.TextPart{{Text: "RK7HEADZPW", Secret: true}}},
	}
	if d := cmp.Diff(want, o.SecretFields); d != "" {
		t.Errorf("SecretFields (-want +got):\n%s", d)
	}
	data := o.Body.Object["data"].(map[string]any)
	if d := cmp.Diff(map[string]any{"up": "RK7HEADZPW", "part": "Rk7hea", "w": "MONITORING", "s": "KX7", "p": "PLAINVALUE9"}, data); d != "" {
		t.Errorf("data (-want +got):\n%s", d)
	}
}
