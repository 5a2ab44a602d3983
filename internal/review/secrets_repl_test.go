package review

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/review/rules"
)

// replSide is one side (its name in a label and a data field) of a fleet whose apps build copies Secret values with kustomize replacements
// into a Namespace's name (team), a ConfigMap's namespace (ns, 2 bytes) and one
// delimiter piece of a host (piece), beside a copy from a ConfigMap ("public") and a
// literal Namespace "monitoring".
func replSide(side, ns, team, piece string) map[string]string {
	return map[string]string{
		"clusters/dev/flux-system/gotk-sync.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata: {name: flux-system, namespace: flux-system}\nspec: {interval: 1m, ref: {branch: main}, url: https://example.com/fleet.git}\n---\n" +
			"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: flux-system, namespace: flux-system}\nspec: {interval: 10m, path: ./clusters/dev, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n",
		"clusters/dev/apps.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec: {interval: 10m, path: ./apps, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n",
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
	r := Review(base, head, Options{Env: rules.Env{Catalog: rules.NewCatalog(nil), Strict: true}})
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
	for _, c := range r.Added {
		got = append(got, "added "+c.Object.String())
	}
	for _, c := range r.Removed {
		got = append(got, "removed "+c.Object.String())
	}
	for _, c := range r.Changed {
		got = append(got, "changed "+c.Object.String()+"\n"+c.Diff)
	}
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
