package review

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// TestShortSecretValues pins what happens to Secret values of 1, 3 and 4 bytes substituted
// by postBuild into a ConfigMap: the Secret's own data is redacted whatever its length; each
// substituted value is redacted at the field it was substituted into, whatever its length
// (render records the field, Object.SecretFields), and the integer ONE became is redacted
// too; a value of 4 bytes is also redacted wherever else it stands, in the ConfigMap and in
// any other text; values of 1 and 3 bytes are not redacted by value elsewhere (they would
// hide every "1" and "abc": "v<redacted>"), so the literal text "1 abc" stays. Their base64
// forms, 4 bytes and more, are redacted by value.
func TestShortSecretValues(t *testing.T) {
	files := map[string]string{
		"clusters/dev/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 1m, ref: {branch: main}, url: https://example.com/fleet.git}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: flux-system, namespace: flux-system}
spec: {interval: 10m, path: ./clusters/dev, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
`,
		"clusters/dev/tiers.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: config, namespace: flux-system}
spec: {interval: 10m, path: ./config, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: flux-system}
spec:
  interval: 10m
  path: ./apps
  prune: true
  dependsOn: [{name: config}]
  sourceRef: {kind: GitRepository, name: flux-system}
  postBuild:
    substituteFrom: [{kind: Secret, name: short}]
`,
		// ONE "1", THREE "abc", FOUR "abcd".
		"config/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: short, namespace: flux-system}\ndata: {ONE: MQ==, THREE: YWJj, FOUR: YWJjZA==}\n",
		"apps/cm.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\ndata:\n  one: \"${ONE}\"\n  three: \"${THREE}\"\n  four: \"${FOUR}\"\n  text: \"1 abc abcd\"\n",
	}
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := render.Render(context.Background(), dir, render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Cluster("dev")
	if c == nil {
		t.Fatal("cluster dev not rendered")
	}
	find := func(ks, kind string) *graph.Object {
		k := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: ks}]
		if k == nil || k.Err != nil {
			t.Fatalf("Kustomization flux-system/%s not built: %+v", ks, k)
		}
		for _, o := range k.Objects {
			if o.ID.Kind == kind {
				return o
			}
		}
		t.Fatalf("no %s in flux-system/%s", kind, ks)
		return nil
	}
	cm, sec := find("apps", "ConfigMap"), find("config", "Secret")
	// "${ONE}" is written unquoted by kustomize before substitution, so ONE becomes the
	// integer 1, as in the cluster; it is redacted at its field all the same.
	if got := cm.Body.Object["data"].(map[string]any)["one"]; got != int64(1) {
		t.Errorf("rendered data.one = %#v, want the integer 1", got)
	}
	if diff := cmp.Diff([]string{"YWJjZA==", "MQ==", "YWJj", "abcd"}, SecretStrings(g)); diff != "" {
		t.Errorf("SecretStrings (-want +got):\n%s", diff)
	}
	wantCM := map[string]any{"one": "<redacted>", "three": "<redacted>", "four": "<redacted>", "text": "1 abc <redacted>"}
	if diff := cmp.Diff(wantCM, Redacted(cm).Object["data"]); diff != "" {
		t.Errorf("Redacted ConfigMap data (-want +got):\n%s", diff)
	}
	if got := Redacted(cm).GetAPIVersion(); got != "v1" {
		t.Errorf("Redacted ConfigMap apiVersion = %q, want v1 (a 1-byte value is not replaced by value)", got)
	}
	wantSecret := map[string]any{"ONE": "<redacted>", "THREE": "<redacted>", "FOUR": "<redacted>"}
	if diff := cmp.Diff(wantSecret, Redacted(sec).Object["data"]); diff != "" {
		t.Errorf("Redacted Secret data (-want +got):\n%s", diff)
	}
	if got, want := RedactText("one: 1, three: abc, four: abcd, YWJj", SecretStrings(g)), "one: 1, three: abc, four: <redacted>, <redacted>"; got != want {
		t.Errorf("RedactText = %q, want %q", got, want)
	}
}

// renderFiles renders a tree of files (path: content) into a graph.
func renderFiles(t *testing.T, files map[string]string) *graph.Graph {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := render.Render(context.Background(), dir, render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// A 2-byte Secret value that makes a whole object name is redacted at its position in the
// whole report: the object keeps its real identity for the comparison (it moves from config
// to apps, matched across the commits) and shows as ConfigMap/default/<redacted> in
// findings, moves and messages. A 2-byte value that changes between base and head shows as
// "<redacted, changed>" in the diff of the field it was substituted into, and nothing of
// either value.
func TestShortSecretNameAndDiff(t *testing.T) {
	side := func(value, owner string) map[string]string {
		apps := "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: NAME, namespace: flux-system}\n" +
			"spec: {interval: 10m, path: ./NAME, prune: true, dependsOn: [{name: secrets}], sourceRef: {kind: GitRepository, name: flux-system}, postBuild: {substituteFrom: [{kind: Secret, name: short}]}}\n"
		return map[string]string{
			"clusters/dev/flux-system/gotk-sync.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: flux-system, namespace: flux-system}\nspec: {interval: 1m, ref: {branch: main}, url: https://example.com/fleet.git}\n---\n" +
				"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: flux-system, namespace: flux-system}\nspec: {interval: 10m, path: ./clusters/dev, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n",
			"clusters/dev/tiers.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: secrets, namespace: flux-system}\nspec: {interval: 10m, path: ./secrets, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n---\n" +
				strings.ReplaceAll(apps, "NAME", "config") + "---\n" + strings.ReplaceAll(apps, "NAME", "apps"),
			"secrets/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: short, namespace: flux-system}\nstringData: {AB: " + value + ", NM: nm}\n",
			owner + "/cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \"${NM}\", namespace: default}\ndata: {v: \"x-${AB}\", nm: nm}\n",
			"config/keep.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep, namespace: default}\ndata: {v: \"${AB}\"}\n",
			"apps/other.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other, namespace: default}\n",
		}
	}
	base, head := renderFiles(t, side("ab", "config")), renderFiles(t, side("cd", "apps"))
	r := Review(base, head, Options{Env: rules.Env{Catalog: rules.NewCatalog(nil), Strict: true}})
	var got []string
	for _, m := range r.Moves {
		got = append(got, "move "+m.Object.String()+" "+m.From+" -> "+m.To)
	}
	for _, f := range r.Findings {
		got = append(got, f.Rule+" "+f.Kustomization+" "+fmt.Sprint(f.Object)+": "+f.Message)
	}
	for _, c := range r.Changed {
		got = append(got, "changed "+c.Object.String()+"\n"+c.Diff)
	}
	out := strings.Join(got, "\n")
	race := "ConfigMap/default/<redacted> leaves flux-system/config, which has prune enabled: neither flux-system/config nor flux-system/apps depends on the other, so whichever reconciles first wins (a race). Flux deletes the object and re-creates it (new UID; data and dependents are lost in between)."
	want := strings.Join([]string{
		"move ConfigMap/default/<redacted> flux-system/config -> flux-system/apps",
		"prune-transient flux-system/config ConfigMap/default/<redacted>: " + race,
		"tier-move flux-system/apps ConfigMap/default/<redacted>: ConfigMap/default/<redacted> moves from Kustomization flux-system/config to flux-system/apps.",
		"changed ConfigMap/default/<redacted>\n--- base\n+++ head\n@@ -1,7 +1,7 @@\n apiVersion: v1\n data:\n   nm: nm\n-  v: x-<redacted>\n+  v: x-<redacted, changed>\n kind: ConfigMap\n metadata:\n   name: <redacted>\n",
		"changed ConfigMap/default/keep\n--- base\n+++ head\n@@ -1,6 +1,6 @@\n apiVersion: v1\n data:\n-  v: <redacted>\n+  v: <redacted, changed>\n kind: ConfigMap\n metadata:\n   name: keep\n",
		"changed Secret/flux-system/short\n--- base\n+++ head\n@@ -4,6 +4,6 @@\n   name: short\n   namespace: flux-system\n stringData:\n-  AB: <redacted>\n+  AB: <redacted, changed>\n   NM: <redacted>\n \n",
	}, "\n")
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
}
