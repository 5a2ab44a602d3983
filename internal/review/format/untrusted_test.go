package format

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// writeTree writes files (path → content) into a new temporary directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fleet is a bootstrap cluster dev whose Kustomization apps builds ./apps, plus files.
func fleet(files map[string]string) map[string]string {
	out := map[string]string{
		"clusters/dev/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  url: https://git.example.invalid/fleet.git
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m
  path: ./clusters/dev
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
		"clusters/dev/flux-system/kustomization.yaml": "resources: [gotk-sync.yaml]\n",
		"clusters/dev/apps.yaml": `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: apps
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
	}
	for k, v := range files {
		out[k] = v
	}
	return out
}

// reviewTrees renders base and head and returns the report in every output format.
func reviewTrees(t *testing.T, base, head map[string]string) (*review.Report, map[string]string) {
	t.Helper()
	var graphs [2]*graph.Graph
	for i, files := range []map[string]string{base, head} {
		g, err := render.Render(context.Background(), writeTree(t, fleet(files)), render.Options{})
		if err != nil {
			t.Fatal(err)
		}
		graphs[i] = g
	}
	r := review.Review(graphs[0], graphs[1], review.Options{BaseRev: "1111111", HeadRev: "2222222", Env: rules.Env{Catalog: rules.NewCatalog(nil), Strict: true}})
	var js, sarif bytes.Buffer
	if err := JSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if err := SARIF(&sarif, r, "test"); err != nil {
		t.Fatal(err)
	}
	return r, map[string]string{"markdown": Markdown(r, MarkdownOptions{}), "json": js.String(), "sarif": sarif.String(), "counts": NewCounts(r)}
}

func secret(name, password, token string) string {
	return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: " + name + "\n  namespace: default\ndata:\n  password: " +
		base64.StdEncoding.EncodeToString([]byte(password)) + "\nstringData:\n  token: " + token + "\n"
}

func sopsSecret(data, mac, enc string) string {
	return `apiVersion: v1
kind: Secret
metadata:
  name: sealed
  namespace: default
data:
  key: ENC[AES256_GCM,data:` + data + `,iv:3b1bX0lmNnJQd3A=,tag:Zm9vYmFyYmF6cXV4,type:str]
sops:
  age:
    - recipient: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p
      enc: |
        -----BEGIN AGE ENCRYPTED FILE-----
        ` + enc + `
        -----END AGE ENCRYPTED FILE-----
  lastmodified: "2026-11-30T07:00:00Z"
  mac: ENC[AES256_GCM,data:` + mac + `,iv:bWFjaXY=,tag:bWFjdGFn,type:str]
  version: 3.9.1
`
}

// TestSecretValuesNeverLeave renders Secrets whose values change, SOPS-encrypted ones and
// a Secret kustomize rejects, reviews them and checks every output format: no value, no
// ciphertext, no SOPS metadata, but the keys and a changed marker.
func TestSecretValuesNeverLeave(t *testing.T) {
	base := map[string]string{
		"apps/kustomization.yaml": "resources: [plain.yaml, sops.yaml]\nsecretGenerator:\n  - name: gen\n    literals: [apikey=GEN-base-literal-9f2]\n",
		"apps/plain.yaml":         secret("plain", "pw-base-77c1", "tok-base-40d2"),
		"apps/sops.yaml":          sopsSecret("QkFTRWNpcGhlcnRleHQ=", "QkFTRW1hYw==", "YWdlLWJhc2Uta2V5LTAwMQ=="),
	}
	// A Kustomization substitutes a Secret's value into a ConfigMap (postBuild.substituteFrom).
	substituted := func(password string) map[string]string {
		return map[string]string{
			"vars/db.yaml":           strings.Replace(secret("db", password, "unused"), "namespace: default", "namespace: flux-system", 1),
			"uses/cm.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dsn\n  namespace: default\ndata:\n  url: postgres://app:${password}@db\n",
			"clusters/dev/vars.yaml": strings.NewReplacer("name: apps", "name: vars", "path: ./apps", "path: ./vars").Replace(fleet(nil)["clusters/dev/apps.yaml"]),
			"clusters/dev/uses.yaml": strings.NewReplacer("name: apps", "name: uses", "path: ./apps", "path: ./uses").Replace(fleet(nil)["clusters/dev/apps.yaml"]) +
				"  dependsOn: [{name: vars}]\n  postBuild:\n    substituteFrom: [{kind: Secret, name: db}]\n",
		}
	}
	for k, v := range substituted("subst-base-4b1") {
		base[k] = v
	}
	head := map[string]string{
		"apps/kustomization.yaml": "resources: [plain.yaml, sops.yaml]\nsecretGenerator:\n  - name: gen\n    literals: [apikey=GEN-head-literal-3a8]\n",
		"apps/plain.yaml":         secret("plain", "pw-head-91e4", "tok-head-55b7"),
		"apps/sops.yaml":          sopsSecret("SEVBRGNpcGhlcnRleHQ=", "SEVBRG1hYw==", "YWdlLWhlYWQta2V5LTAwMg=="),
		// A nameless Secret fails the build: its values must not reach the error.
		"apps/broken/kustomization.yaml": "resources: [nameless.yaml]\n",
		"apps/broken/nameless.yaml":      strings.Replace(secret("", "pw-nameless-6d0", "tok-nameless-2e9"), "  name: \n", "", 1),
		"clusters/dev/broken.yaml":       strings.NewReplacer("name: apps", "name: broken", "path: ./apps", "path: ./apps/broken").Replace(fleet(nil)["clusters/dev/apps.yaml"]),
	}
	for k, v := range substituted("subst-head-8c3") {
		head[k] = v
	}
	r, outs := reviewTrees(t, base, head)
	if len(r.Changed) == 0 {
		t.Fatal("no changed objects: the fixture does not exercise the diff")
	}
	values := []string{
		"pw-base-77c1", "pw-head-91e4", "tok-base-40d2", "tok-head-55b7", "GEN-base-literal-9f2", "GEN-head-literal-3a8",
		"QkFTRWNpcGhlcnRleHQ=", "SEVBRGNpcGhlcnRleHQ=", "QkFTRW1hYw==", "SEVBRG1hYw==", "YWdlLWJhc2Uta2V5LTAwMQ==", "YWdlLWhlYWQta2V5LTAwMg==",
		"ENC[", "BEGIN AGE", "age1ql3z7hjy", "pw-nameless-6d0", "tok-nameless-2e9", "subst-base-4b1", "subst-head-8c3",
	}
	for _, v := range []string{"pw-base-77c1", "pw-head-91e4", "GEN-base-literal-9f2", "GEN-head-literal-3a8", "pw-nameless-6d0"} {
		values = append(values, base64.StdEncoding.EncodeToString([]byte(v)))
	}
	for format, out := range outs {
		for _, v := range values {
			if strings.Contains(out, v) {
				t.Errorf("%s output holds %q", format, v)
			}
		}
	}
	md := outs["markdown"]
	for _, want := range []string{"password: &lt;redacted, changed&gt;", "token: &lt;redacted, changed&gt;", "key: &lt;redacted, changed&gt;", "url: postgres://app:&lt;redacted, changed&gt;@db"} {
		if !strings.Contains(md, want) && !strings.Contains(md, strings.ReplaceAll(strings.ReplaceAll(want, "&lt;", "<"), "&gt;", ">")) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestHostileNamesKeepTheCommentIntact renders objects and files whose names carry
// Markdown, HTML, code fences and a fake marker, and checks the comment's structure.
func TestHostileNamesKeepTheCommentIntact(t *testing.T) {
	evil := "x` | <b>y</b> ``` <!-- tiergate --> [z](https://evil.example) <details> @org/everyone"
	file := "apps/<!-- tiergate --> ```|<img src=x>.yaml"
	cmWith := func(name, v string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"" + name + "\"\n  namespace: default\ndata:\n  v: \"" + v + "\"\n"
	}
	base := map[string]string{file: cmWith("safe", "1")}
	head := map[string]string{
		file:                        cmWith("safe", "2"),
		"apps/more.yaml":            cmWith(strings.ReplaceAll(evil, "\"", ""), "``` <!-- tiergate -->\n| a |"),
		"broken/bad.yaml":           "kind: [\n<!-- tiergate -->```",
		"broken/kustomization.yaml": "resources: [bad.yaml]\n",
		"clusters/dev/broken.yaml":  strings.NewReplacer("name: apps", "name: broken", "path: ./apps", "path: ./broken").Replace(fleet(nil)["clusters/dev/apps.yaml"]),
	}
	_, outs := reviewTrees(t, base, head)
	md := outs["markdown"]
	if !strings.HasPrefix(md, Marker+"\n") || strings.Count(md, "<!-- tiergate") != 1 || strings.Count(md, "<!--") != 1 {
		t.Errorf("the marker must open the comment and appear once:\n%s", md)
	}
	for _, bad := range []string{"<b>y", "<img", "<details> ", "](https://evil.example)", "@org/everyone"} {
		if strings.Contains(md, bad) {
			t.Errorf("comment holds raw %q:\n%s", bad, md)
		}
	}
	// Every fence that opens closes with the same run; table rows keep their cells (7 in
	// the findings table, 4 in moves: 8 or 5 pipes).
	var open string
	fence := regexp.MustCompile("^(`{3,})")
	for _, l := range strings.Split(md, "\n") {
		m := fence.FindString(l)
		switch {
		case m == "":
		case open == "":
			open = m
		case m == open && strings.TrimSpace(l) == m:
			open = ""
		}
		if n := strings.Count(l, "|"); open == "" && strings.HasPrefix(l, "|") && n != 8 && n != 5 {
			t.Errorf("table row with %d pipes: %s", n, l)
		}
	}
	if open != "" {
		t.Errorf("fence %s never closes:\n%s", open, md)
	}
}
