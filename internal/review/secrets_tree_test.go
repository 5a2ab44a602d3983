package review

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/rendertest"
)

// treeFiles is a cluster whose Kustomization config holds Secrets and ConfigMaps that
// copy their values in plain text (hostile5 fold, mix m3, m5); tag tells base ("base")
// from head ("head").
func treeFiles(tag string) map[string]string {
	phrase := "correct horse battery staple " + tag + "Xq7 and some more words to pass the eighty column fold width of yaml encoders"
	cert := "-----BEGIN KEY-----\\nMIIline1" + tag + "AAAA\\nMIIline2" + tag + "BBBB\\n-----END KEY-----\\n"
	return map[string]string{
		"clusters/dev/flux-system/gotk-sync.yaml": rendertest.DevRoot,
		"clusters/dev/tiers.yaml":                 rendertest.DevKustomization("config"),
		"config/secret.yaml":                      "apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: default}\nstringData:\n  p: \"" + phrase + "\"\n  cert: \"" + cert + "\"\n",
		// A plain copy of each value, a single line of the key file, a public phrase as
		// long, a PEM boundary line alone, and the SOPS metadata of a dotenv file as a
		// configMapGenerator's envs: brings it, with no Secret copy of it.
		"config/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: copy, namespace: default}\ndata:\n" +
			"  p: \"" + phrase + "\"\n  cert: \"" + cert + "\"\n  line: MIIline2" + tag + "BBBB\n  rev: " + tag + "\n" +
			"  public: \"a public sentence that is long enough to be folded by the yaml encoder at eighty columns " + tag + "\"\n" +
			"  boundary: \"-----BEGIN KEY-----\"\n" +
			"  sops_age__list_0__map_enc: \"-----BEGIN AGE ENCRYPTED FILE-----\\\\nYWdl" + tag + "wrappedkey\\\\n-----END AGE ENCRYPTED FILE-----\\\\n\"\n" +
			"  sops_age__list_0__map_recipient: age1qyqszqgp" + tag + "\n  sops_version: 3.8.1\n" +
			"  file.enc.yaml: \"data: ENC[AES256_GCM,data:Zk9" + tag + "cipher,iv:a=,tag:b=,type:str]\\nsops:\\n  mac: ENC[AES256_GCM,data:m,iv:x=,tag:y=,type:str]\\n\"\n",
	}
}

// A value over 80 columns with spaces is folded by the YAML encoder, and a multi-line
// value becomes a block scalar, one line per line: the redaction of the marshalled text
// found neither, so a plain copy of a Secret value showed in the diff and in build
// (hostile5 fold, mix m3). Now the object's strings are redacted before they are
// marshalled, each line of a multi-line value by value too; SOPS metadata of a dotenv
// file (sops_* keys) and a SOPS-encrypted file read whole are redacted in any kind (mix
// m5). Negatives: a public long sentence folds as before, a PEM boundary line stays.
func TestRedactionBeforeMarshalling(t *testing.T) {
	base, head := renderFiles(t, treeFiles("base")), renderFiles(t, treeFiles("head"))
	r := Review(base, head, Options{})
	var diff string
	for _, c := range r.Changed {
		if c.Object.Kind == "ConfigMap" && c.Object.Name == "copy" {
			diff = c.Diff
		}
	}
	// A plain copy shows "<redacted>" on both sides (the report-wide redaction by value
	// does not know which side changed); SOPS metadata compares its own values.
	want := `--- base
+++ head
@@ -2,14 +2,14 @@
 data:
   boundary: '-----BEGIN KEY-----'
   cert: <redacted>
-  file.enc.yaml: <redacted>
+  file.enc.yaml: <redacted, changed>
   line: <redacted>
   p: <redacted>
   public: a public sentence that is long enough to be folded by the yaml encoder at
-    eighty columns base
-  rev: base
-  sops_age__list_0__map_enc: <redacted>
-  sops_age__list_0__map_recipient: <redacted>
+    eighty columns head
+  rev: head
+  sops_age__list_0__map_enc: <redacted, changed>
+  sops_age__list_0__map_recipient: <redacted, changed>
   sops_version: <redacted>
 kind: ConfigMap
 metadata:
`
	if d := cmp.Diff(want, diff); d != "" {
		t.Errorf("diff of ConfigMap copy (-want +got):\n%s", d)
	}
	for _, v := range []string{"battery staple", "MIIline1", "MIIline2headBBBB", "wrappedkey", "qyqszqgp", "Zk9", "BEGIN AGE"} {
		if strings.Contains(diff, v) {
			t.Errorf("the diff shows %q", v)
		}
	}
}

// BenchmarkTreeRedaction measures the diff of the ConfigMap copy of treeFiles with the
// review's redaction applied to its strings before marshalling (tree) and without (none,
// as before: the marshalled text alone was redacted, redactStrings).
func BenchmarkTreeRedaction(b *testing.B) {
	t := &testing.T{}
	base, head := renderFiles(t, treeFiles("base")), renderFiles(t, treeFiles("head"))
	common := CommonValues(base, head)
	rep := redactionWith(common, base, head).replacer()
	find := func(g *graph.Graph) *graph.Object {
		for _, o := range g.Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "config"}].Objects {
			if o.ID.Kind == "ConfigMap" {
				return o
			}
		}
		return nil
	}
	x, y := find(base), find(head)
	for _, c := range []struct {
		name string
		fn   func(string) string
	}{{"none", nil}, {"tree", rep.Replace}} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				_ = rep.Replace(unifiedRedacted(x, y, common, c.fn))
			}
		})
	}
}

// redactTree replaces in values, list items and keys, writes a key whose redacted form
// another key of the map has as "<redacted> (2)" (both entries stay, hostile6 r13), and
// returns an object with nothing to redact as it is.
func TestRedactTree(t *testing.T) {
	rep := strings.NewReplacer("Zq8secret", "<redacted>").Replace
	u := &unstructured.Unstructured{Object: map[string]any{
		"data": map[string]any{"a": "x Zq8secret y", "Zq8secret": "k", "<redacted>": "taken", "n": int64(3)},
		"list": []any{"Zq8secret", "plain"},
	}}
	got := redactTree(u, rep)
	want := map[string]any{
		"data": map[string]any{"a": "x <redacted> y", "<redacted> (2)": "k", "<redacted>": "taken", "n": int64(3)},
		"list": []any{"<redacted>", "plain"},
	}
	if d := cmp.Diff(want, got.Object); d != "" {
		t.Errorf("redactTree (-want +got):\n%s", d)
	}
	if u.Object["list"].([]any)[0] != "Zq8secret" {
		t.Error("redactTree changed its argument")
	}
	renamed := redactTree(&unstructured.Unstructured{Object: map[string]any{"Zq8secret": "v"}}, rep)
	if d := cmp.Diff(map[string]any{"<redacted>": "v"}, renamed.Object); d != "" {
		t.Errorf("key (-want +got):\n%s", d)
	}
	plain := &unstructured.Unstructured{Object: map[string]any{"a": "b"}}
	if redactTree(plain, rep) != plain || redactTree(plain, nil) != plain {
		t.Error("nothing to redact: want the object itself")
	}
}
