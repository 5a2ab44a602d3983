package render

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helmrelease"
)

// chartNotesFiles is a tree whose chart prints its notes.txt (two values, neither in a
// Secret document of the chart) into ConfigMap apps/notes, and whose Kustomization apps
// applies a Secret holding values.
func chartNotesFiles(values ...string) map[string]string {
	secret := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: apps\nstringData:\n"
	for i, v := range values {
		secret += "  K" + string(rune('A'+i)) + ": " + v + "\n"
	}
	return merge(bootstrap("dev"), map[string]string{
		"charts/web/Chart.yaml":        "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"charts/web/notes.txt":         "first Rot8first, second Rot8second\n",
		"charts/web/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: notes}\ndata:\n  notes: {{ .Files.Get \"notes.txt\" | quote }}\n",
		"clusters/dev/apps.yaml":       ks("apps", "./apps"),
		"apps/web.yaml":                hr("web", gitChart),
		"apps/secret.yaml":             secret,
	})
}

// TestChartFilesFollowClusterSecrets renders one chart three times through one Cache as
// the cluster's Secret values change: the chart's files are rewritten from the cluster's
// values, so a render made with another set of values is never read back (the render key
// names the rewritten files, FileSecrets.Digest). Before, a render kept while one value was
// a Secret's would have served a commit where both are. A Secret value that is a common
// word is left in the file, and the release says so.
func TestChartFilesFollowClusterSecrets(t *testing.T) {
	c := NewCache(0)
	p := helmrelease.Placeholders{}
	for _, tc := range []struct {
		name           string
		values         []string
		want           string
		note, unmasked bool
	}{
		{"one value", []string{"Rot8first"}, "first " + p.Text("Rot8first") + ", second Rot8second\n", true, false},
		{"both values", []string{"Rot8first", "Rot8second"}, "first " + p.Text("Rot8first") + ", second " + p.Text("Rot8second") + "\n", true, false},
		{"neither", []string{"Unrelated9"}, "first Rot8first, second Rot8second\n", false, false},
		{"one value again", []string{"Rot8first"}, "first " + p.Text("Rot8first") + ", second Rot8second\n", true, false},
		// A common word is not replaced by value: the notice says it stands as written.
		{"a common word", []string{"second"}, "first Rot8first, second Rot8second\n", false, true},
	} {
		src, err := fsys.ReadSource(tree(t, chartNotesFiles(tc.values...)), graph.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := RenderSource(context.Background(), src, Options{Config: &config.Config{}, Cache: c})
		if err != nil {
			t.Fatal(err)
		}
		cl := g.Clusters[0]
		owners := cl.Owners[graph.ObjectID{Kind: "ConfigMap", Namespace: "apps", Name: "notes"}]
		if len(owners) != 1 {
			t.Fatalf("%s: ConfigMap notes not rendered", tc.name)
		}
		if got, _, _ := unstructured.NestedString(owners[0].Body.Object, "data", "notes"); got != tc.want {
			t.Errorf("%s: notes = %q, want %q", tc.name, got, tc.want)
		}
		rels := cl.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].Releases
		if len(rels) != 1 {
			t.Fatalf("%s: %d releases", tc.name, len(rels))
		}
		noted, unmasked := false, false
		for _, a := range rels[0].Approximate {
			noted = noted || a == helmrelease.SecretFilesNote
			unmasked = unmasked || a == helmrelease.UnmaskedFilesNote
		}
		if noted != tc.note || unmasked != tc.unmasked {
			t.Errorf("%s: approximate %q; want the chart-files note %v, the unmasked note %v", tc.name, rels[0].Approximate, tc.note, tc.unmasked)
		}
	}
}

// TestChartFilesHideDerivedValues: what postBuild substitution derived from a Secret
// variable (${TOK:0:6}, Object.SecretValues) is a Secret value for a chart's files too, as
// for the review; the variable's source Secret lives in another Kustomization.
func TestChartFilesHideDerivedValues(t *testing.T) {
	files := merge(bootstrap("dev"), map[string]string{
		"charts/web/Chart.yaml":        "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"charts/web/notes.txt":         "piece Drv9ab, whole Drv9abcdefgh\n",
		"charts/web/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: notes}\ndata:\n  notes: {{ .Files.Get \"notes.txt\" | quote }}\n",
		"clusters/dev/apps.yaml": ks("config", "./config") + "---\n" +
			ks("apps", "./apps", "dependsOn: [{name: config}]", "postBuild:", "  substituteFrom:", "    - {kind: Secret, name: vars}"),
		"config/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: vars, namespace: flux-system}\nstringData: {TOK: Drv9abcdefgh}\n",
		"apps/cm.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: derived, namespace: apps}\ndata:\n  x: \"${TOK:0:6}\"\n",
		"apps/web.yaml":      hr("web", gitChart),
	})
	g, err := Render(context.Background(), tree(t, files), Options{Config: &config.Config{}})
	if err != nil {
		t.Fatal(err)
	}
	owners := g.Clusters[0].Owners[graph.ObjectID{Kind: "ConfigMap", Namespace: "apps", Name: "notes"}]
	if len(owners) != 1 {
		t.Fatal("ConfigMap notes not rendered")
	}
	p := helmrelease.Placeholders{}
	got, _, _ := unstructured.NestedString(owners[0].Body.Object, "data", "notes")
	if want := "piece " + p.Text("Drv9ab") + ", whole " + p.Text("Drv9abcdefgh") + "\n"; got != want {
		t.Errorf("notes = %q, want %q", got, want)
	}
}
