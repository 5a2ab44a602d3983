package review

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/rendertest"
)

// replSide is one side (its name in a label and a data field) of a fleet whose apps build copies Secret values with kustomize replacements
// into a Namespace's name (team), a ConfigMap's namespace (ns, 2 bytes) and one
// delimiter piece of a host (piece), beside a copy from a ConfigMap ("public") and a
// literal Namespace "monitoring".
func replSide(side, ns, team, piece string) map[string]string {
	return map[string]string{
		"clusters/dev/flux-system/gotk-sync.yaml": rendertest.DevRoot,
		"clusters/dev/apps.yaml":                  "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec: {interval: 10m, path: ./apps, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n",
		"apps/kustomization.yaml": "resources: [secret.yaml, objs.yaml]\nreplacements:\n" +
			"  - source: {kind: Secret, name: app-secret, fieldPath: stringData.TEAM}\n    targets: [{select: {kind: Namespace, name: team}, fieldPaths: [metadata.name]}]\n" +
			"  - source: {kind: Secret, name: app-secret, fieldPath: stringData.NS}\n    targets: [{select: {kind: ConfigMap, name: cfg}, fieldPaths: [metadata.namespace]}]\n" +
			"  - source: {kind: Secret, name: app-secret, fieldPath: stringData.PIECE}\n    targets: [{select: {kind: ConfigMap, name: cfg}, fieldPaths: [data.host], options: {delimiter: ., index: 1}}]\n" +
			"  - source: {kind: ConfigMap, name: plain, fieldPath: data.p}\n    targets: [{select: {kind: ConfigMap, name: cfg}, fieldPaths: [data.fromcm]}]\n",
		"apps/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: app-secret, namespace: flux-system}\nstringData: {NS: " + ns + ", TEAM: " + team + ", PIECE: " + piece + "}\n",
		"apps/objs.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: monitoring, labels: {side: " + side + "}}\n---\n" +
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain, namespace: monitoring}\ndata: {p: public}\n---\n" +
			"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: default}\ndata: {host: x.placeholder.example.com, fromcm: placeholder, side: " + side + "}\n",
	}
}

// TestReplacementSecretsInReport: Secret values a kustomize replacement copies into a
// Namespace's name, a namespace and one delimiter piece are redacted at those positions
// in findings, object lists and diffs, whatever their length or shape (issue 15 item 6:
// "jw", the words "platform", "tooling", "alpha", "omega"). Negatives: the copy
// from a ConfigMap ("public") and the literal Namespace "monitoring" show.
func TestReplacementSecretsInReport(t *testing.T) {
	base, head := renderFiles(t, replSide("base", "jw", "platform", "alpha")), renderFiles(t, replSide("head", "jw", "tooling", "omega"))
	r := strictReview(base, head)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"jw", "platform", "tooling", "alpha", "omega"} {
		if re := regexp.MustCompile(`(^|[^A-Za-z0-9_-])` + v + `($|[^A-Za-z0-9_-])`); re.Match(data) {
			t.Errorf("the JSON report shows %q: %s", v, re.Find(data))
		}
	}
	for _, v := range []string{"public", "monitoring"} {
		if !strings.Contains(string(data), v) {
			t.Errorf("the JSON report lacks %q", v)
		}
	}
	var got []string
	for _, f := range r.Findings {
		got = append(got, string(f.Status)+" "+f.Rule+" "+fmt.Sprint(f.Object)+": "+f.Message)
	}
	got = append(got, changeLines("added", r.Added, false)...)
	got = append(got, changeLines("removed", r.Removed, false)...)
	got = append(got, changeLines("changed", r.Changed, true)...)
	want := []string{
		"new destructive-prune Namespace/<redacted>: Namespace/<redacted> is removed from flux-system/apps, which garbage-collects it: Flux deletes it and everything in Namespace <redacted>, whoever owns it.",
		"existing missing-namespace Namespace/<redacted>: ConfigMap/<redacted>/cfg of Kustomization flux-system/apps is in Namespace <redacted>, which nothing in cluster dev creates (no Kustomization or chart renders it, no HelmRelease's install.createNamespace creates it): on a cluster without it, the dry-run of flux-system/apps fails with 'namespaces \"<redacted>\" not found' and applies nothing.",
		"added Namespace/<redacted>",
		"removed Namespace/<redacted>",
		"changed Secret/flux-system/app-secret\n--- base\n+++ head\n@@ -5,6 +5,6 @@\n   namespace: flux-system\n stringData:\n   NS: <redacted>\n-  PIECE: <redacted>\n-  TEAM: <redacted>\n+  PIECE: <redacted, changed>\n+  TEAM: <redacted, changed>\n \n",
		"changed Namespace/monitoring\n--- base\n+++ head\n@@ -2,6 +2,6 @@\n kind: Namespace\n metadata:\n   labels:\n-    side: base\n+    side: head\n   name: monitoring\n \n",
		"changed ConfigMap/<redacted>/cfg\n--- base\n+++ head\n@@ -1,8 +1,8 @@\n apiVersion: v1\n data:\n   fromcm: public\n-  host: x.<redacted>.example.com\n-  side: base\n+  host: x.<redacted, changed>.example.com\n+  side: head\n kind: ConfigMap\n metadata:\n   name: cfg\n",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
}

// TestCommonWordAcrossObjects: a Secret value that is a common word ("default", the
// namespace of most objects) is redacted at its positions only, in every object's diff,
// also in an object that does not hold the word literally itself (issue 15 item 6, the
// "Not covered" oracle: the ConfigMap of Namespace other showed `uses <redacted>` while
// every other object showed "default"). Negatives: the substituted field and the
// Secret's data still show <redacted>; a value that is no word ("Zq8wLk3vPx") is still
// redacted by value in that same object, as in Redacted and the report's text.
func TestCommonWordAcrossObjects(t *testing.T) {
	side := func(v string) map[string]string {
		return rendertest.DevFleet("secrets", "word", map[string]string{
			"secrets/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: word, namespace: flux-system}\nstringData: {k: default, t: Zq8wLk3vPx}\n",
			"apps/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: use, namespace: default}\ndata: {ns: \"${k}\", v: \"" + v + "\"}\n---\n" +
				"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: note\n  namespace: other\n  annotations: {note: uses default, tok: uses Zq8wLk3vPx, v: \"" + v + "\"}\ndata: {d: \"${k}\"}\n",
		})
	}
	base, head := renderFiles(t, side("1")), renderFiles(t, side("2"))
	r := strictReview(base, head)
	var got []string
	got = append(got, changeLines("changed", r.Changed, true)...)
	want := []string{
		"changed ConfigMap/default/use\n--- base\n+++ head\n@@ -1,7 +1,7 @@\n apiVersion: v1\n data:\n   ns: <redacted>\n-  v: \"1\"\n+  v: \"2\"\n kind: ConfigMap\n metadata:\n   name: use\n",
		"changed ConfigMap/other/note\n--- base\n+++ head\n@@ -6,7 +6,7 @@\n   annotations:\n     note: uses default\n     tok: uses <redacted>\n-    v: \"1\"\n+    v: \"2\"\n   name: note\n   namespace: other\n \n",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
	// What build shows of the object: the common word at its positions only (data.d),
	// the other value by value.
	var note *graph.Object
	for _, o := range head.Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].Objects {
		if o.ID.Name == "note" {
			note = o
		}
	}
	wantAnn := map[string]string{"note": "uses default", "tok": "uses <redacted>", "v": "2"}
	u := RedactedIn(note, CommonValues(base, head))
	if d := cmp.Diff(wantAnn, u.GetAnnotations()); d != "" {
		t.Errorf("annotations (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]any{"d": "<redacted>"}, u.Object["data"]); d != "" {
		t.Errorf("data (-want +got):\n%s", d)
	}
	// Negative: on its own (Redacted), the object holds no literal "default", and the
	// value is replaced in it by value as before.
	if got := Redacted(note).GetAnnotations()["note"]; got != "uses <redacted>" {
		t.Errorf("Redacted note = %q", got)
	}
	if got, want := RedactGraphText("note: uses default\ntok: uses Zq8wLk3vPx", base, head), "note: uses default\ntok: uses <redacted>"; got != want {
		t.Errorf("RedactGraphText = %q, want %q", got, want)
	}
}
