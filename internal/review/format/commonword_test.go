package format

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCommonWordMarkdownAndJSON: the Markdown comment and the JSON report of a review in
// which a Secret value is a common word ("default", every object's namespace) keep the
// word where it stands literally in an object that does not hold it itself (an annotation
// "uses default" in Namespace other; ConfigMap default/plain names the word) and redact it at the field substitution wrote
// (issue 15 item 6, the oracle across objects). Negative: a value with digits
// ("Zq8wLk3vPx") is redacted by value in the same object.
func TestCommonWordMarkdownAndJSON(t *testing.T) {
	side := func(v string) map[string]string {
		return map[string]string{
			"vars/s.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: word, namespace: flux-system}\nstringData: {k: default, t: Zq8wLk3vPx}\n",
			"apps/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: note\n  namespace: other\n" +
				"  annotations: {note: uses default, tok: uses Zq8wLk3vPx, v: \"" + v + "\"}\ndata: {d: \"${k}\"}\n---\n" +
				"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain, namespace: default}\n",
			"clusters/dev/vars.yaml": strings.NewReplacer("name: apps", "name: vars", "path: ./apps", "path: ./vars").Replace(fleet(nil)["clusters/dev/apps.yaml"]),
			"clusters/dev/apps.yaml": fleet(nil)["clusters/dev/apps.yaml"] + "  dependsOn: [{name: vars}]\n  postBuild:\n    substituteFrom: [{kind: Secret, name: word}]\n",
		}
	}
	_, outs := reviewTrees(t, side("1"), side("2"))
	diff := "@@ -6,7 +6,7 @@\n   annotations:\n     note: uses default\n     tok: uses <redacted>\n-    v: \"1\"\n+    v: \"2\"\n   name: note\n   namespace: other\n"
	if !strings.Contains(outs["markdown"], "```diff\n--- base\n+++ head\n"+diff) {
		t.Errorf("markdown lacks the diff\n%s\nin\n%s", diff, outs["markdown"])
	}
	var report struct{ Changed []struct{ Diff string } }
	if err := json.Unmarshal([]byte(outs["json"]), &report); err != nil {
		t.Fatal(err)
	}
	if len(report.Changed) != 1 || report.Changed[0].Diff != "--- base\n+++ head\n"+diff+" \n" {
		t.Errorf("json changed = %+v, want one diff\n%s", report.Changed, diff)
	}
	for name, out := range outs {
		if strings.Contains(out, "uses <redacted>\n     tok") || strings.Contains(out, "Zq8wLk3vPx") {
			t.Errorf("%s redacts the common word by value or shows the other value", name)
		}
	}
}
