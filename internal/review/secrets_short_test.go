package review

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/rendertest"
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
	files := rendertest.DevFleet("config", "short", map[string]string{
		// ONE "1", THREE "abc", FOUR "abcd".
		"config/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: short, namespace: flux-system}\ndata: {ONE: MQ==, THREE: YWJj, FOUR: YWJjZA==}\n",
		"apps/cm.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: default}\ndata:\n  one: \"${ONE}\"\n  three: \"${THREE}\"\n  four: \"${FOUR}\"\n  text: \"1 abc abcdef\"\n",
	})
	g := renderFiles(t, files)
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
	wantCM := map[string]any{"one": "<redacted>", "three": "<redacted>", "four": "<redacted>", "text": "1 abc <redacted>ef"}
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
	g, err := render.Render(context.Background(), rendertest.Tree(t, files), render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// strictReview reviews base against head with the built-in catalog, strict (every rule
// at its own severity), as the secret tests read the report.
func strictReview(base, head *graph.Graph) *Report {
	return Review(base, head, Options{Env: rules.Env{Catalog: rules.NewCatalog(nil), Strict: true}})
}

// changeLines is a line per change of cs: verb and the object ("changed ConfigMap/ns/n"),
// then a newline and its diff when diff is set.
func changeLines(verb string, cs []ObjectChange, diff bool) []string {
	var out []string
	for _, c := range cs {
		l := verb + " " + c.Object.String()
		if diff {
			l += "\n" + c.Diff
		}
		out = append(out, l)
	}
	return out
}

// A 2-byte Secret value that makes a whole object name is redacted at its position in the
// whole report: the object keeps its real identity for the comparison (it moves from config
// to apps, matched across the commits) and shows as ConfigMap/default/<redacted> in
// findings, moves and messages. A 2-byte value that changes between base and head shows as
// "<redacted, changed>" in the diff of the field it was substituted into, and nothing of
// either value. A value that names an object is masked wherever it stands as a whole
// token, so the literal "nm: nm" shows as "<redacted>: <redacted>" too.
func TestShortSecretNameAndDiff(t *testing.T) {
	side := func(value, owner string) map[string]string {
		apps := "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: NAME, namespace: flux-system}\n" +
			"spec: {interval: 10m, path: ./NAME, prune: true, dependsOn: [{name: secrets}], sourceRef: {kind: GitRepository, name: flux-system}, postBuild: {substituteFrom: [{kind: Secret, name: short}]}}\n"
		return map[string]string{
			"clusters/dev/flux-system/gotk-sync.yaml": rendertest.DevRoot,
			"clusters/dev/tiers.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: secrets, namespace: flux-system}\nspec: {interval: 10m, path: ./secrets, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n---\n" +
				strings.ReplaceAll(apps, "NAME", "config") + "---\n" + strings.ReplaceAll(apps, "NAME", "apps"),
			"secrets/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: short, namespace: flux-system}\nstringData: {AB: " + value + ", NM: nm}\n",
			owner + "/cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \"${NM}\", namespace: default}\ndata: {v: \"x-${AB}\", nm: nm}\n",
			"config/keep.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: keep, namespace: default}\ndata: {v: \"${AB}\"}\n",
			"apps/other.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other, namespace: default}\n",
		}
	}
	base, head := renderFiles(t, side("ab", "config")), renderFiles(t, side("cd", "apps"))
	r := strictReview(base, head)
	var got []string
	for _, m := range r.Moves {
		got = append(got, "move "+m.Object.String()+" "+m.From+" -> "+m.To)
	}
	for _, f := range r.Findings {
		got = append(got, f.Rule+" "+f.Kustomization+" "+fmt.Sprint(f.Object)+": "+f.Message)
	}
	got = append(got, changeLines("changed", r.Changed, true)...)
	out := strings.Join(got, "\n")
	race := "ConfigMap/default/<redacted> leaves flux-system/config, which has prune enabled: neither flux-system/config nor flux-system/apps depends on the other, so whichever reconciles first wins (a race). Flux deletes the object and re-creates it from git (new UID): it comes back with its git content; lost is only what the cluster alone had: its status, changes made in the cluster, and objects that name it as their owner (Kubernetes' garbage collector deletes them)."
	want := strings.Join([]string{
		"move ConfigMap/default/<redacted> flux-system/config -> flux-system/apps",
		"prune-transient flux-system/config ConfigMap/default/<redacted>: " + race,
		"tier-move flux-system/apps ConfigMap/default/<redacted>: ConfigMap/default/<redacted> moves from Kustomization flux-system/config to flux-system/apps.",
		"changed ConfigMap/default/<redacted>\n--- base\n+++ head\n@@ -1,7 +1,7 @@\n apiVersion: v1\n data:\n   <redacted>: <redacted>\n-  v: x-<redacted>\n+  v: x-<redacted, changed>\n kind: ConfigMap\n metadata:\n   name: <redacted>\n",
		"changed ConfigMap/default/keep\n--- base\n+++ head\n@@ -1,6 +1,6 @@\n apiVersion: v1\n data:\n-  v: <redacted>\n+  v: <redacted, changed>\n kind: ConfigMap\n metadata:\n   name: keep\n",
		"changed Secret/flux-system/short\n--- base\n+++ head\n@@ -4,6 +4,6 @@\n   name: short\n   namespace: flux-system\n stringData:\n-  AB: <redacted>\n+  AB: <redacted, changed>\n   NM: <redacted>\n \n",
	}, "\n")
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
}

// A 2-byte Secret value (S2, "jw" at base "fh") that makes a whole reference field of a
// Kustomization or HelmRelease (dependsOn, sourceRef, targetNamespace, releaseName, a
// health check, a chart path) and an object's namespace is masked wherever the rules quote
// it ("default/jw", `namespaces "jw" not found`, "charts/jw", "release name fh → jw").
// Before, every finding below showed it (hostile case short2).
func TestShortSecretReferences(t *testing.T) {
	side := func(value string) map[string]string {
		return rendertest.DevFleet("secrets", "short", map[string]string{
			"secrets/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: short, namespace: flux-system}\nstringData: {S2: " + value + "}\n",
			"apps/ks.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: ks-a, namespace: flux-system}\n" +
				"spec: {interval: 10m, path: ./apps/none, prune: true, targetNamespace: \"${S2}\", dependsOn: [{name: \"${S2}\"}], sourceRef: {kind: GitRepository, name: \"${S2}\"}}\n---\n" +
				"apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: hr, namespace: default}\n" +
				"spec: {interval: 10m, targetNamespace: \"${S2}\", releaseName: \"${S2}\", dependsOn: [{name: \"${S2}\"}], chart: {spec: {chart: \"./charts/${S2}\", sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}}}}\n---\n" +
				"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: \"${S2}\"}\n",
		})
	}
	base, head := renderFiles(t, side("fh")), renderFiles(t, side("jw"))
	r := strictReview(base, head)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"jw", "fh"} {
		if re := regexp.MustCompile(`(^|[^A-Za-z0-9_.-])` + v + `($|[^A-Za-z0-9_.-]|\.($|[^A-Za-z0-9_-]))`); re.Match(data) {
			t.Errorf("the report shows %q: %s", v, re.Find(data))
		}
	}
	var got []string
	for _, f := range r.Findings {
		got = append(got, string(f.Status)+" "+f.Rule+" "+fmt.Sprint(f.Object)+": "+f.Message+" | "+f.Suggestion)
		// The key (SARIF's fingerprint) is the masked identity too (hostile5 fp2).
		for _, v := range []string{"jw", "fh"} {
			if containsToken(f.Key(), v) {
				t.Errorf("%s key %q holds %q", f.Rule, f.Key(), v)
			}
		}
	}
	// ks-a is not reviewed, so it may create the HelmRelease hr dependsOn (a warning), but
	// not its own dependency; hr releases into another namespace than flux-system, so its
	// chart cannot create ks-a's dependency or source: errors (unknownProducersExcept).
	want := []string{
		"new depends-on-not-found <nil>: Kustomization flux-system/ks-a dependsOn flux-system/<redacted>, which is not in the cluster: it will wait forever with 'dependency flux-system/<redacted> not found'. | Remove `- name: <redacted>` from spec.dependsOn of flux-system/ks-a, or point it at an existing Kustomization.",
		"new source-not-found <nil>: Kustomization flux-system/ks-a's spec.sourceRef names GitRepository flux-system/<redacted>, which no Kustomization or chart of cluster dev creates (the namespace defaults to the referrer's own): kustomize-controller marks it not Ready with 'Source 'GitRepository/flux-system/<redacted>' not found' and retries: nothing of it is built, applied or pruned, and what dependsOn it waits. Existing GitRepository sources: flux-system/flux-system. | Point spec.sourceRef of Kustomization flux-system/ks-a (apps/ks.yaml:4) at an existing GitRepository, or add GitRepository flux-system/<redacted> to the manifests of Kustomization flux-system/apps or of one it dependsOn.",
		"new depends-on-not-found HelmRelease.helm.toolkit.fluxcd.io/default/hr: HelmRelease default/hr dependsOn default/<redacted>, which is not a HelmRelease in the cluster, so helm-controller never installs or upgrades it: its Ready condition reads 'unable to get 'default/<redacted>' dependency: helmreleases.helm.toolkit.fluxcd.io \"<redacted>\" not found'. Not certain: Kustomization flux-system/ks-a (not reviewed: sourceRef GitRepository/flux-system/<redacted> is not the cluster's source and has no folder in .tiergate.yaml sources) may create it. | Remove `- name: <redacted>` from spec.dependsOn of HelmRelease default/hr, or point it at an existing HelmRelease.",
		"new missing-namespace Namespace/<redacted>: ConfigMap/<redacted>/cm of Kustomization flux-system/apps is in Namespace <redacted>, which nothing in cluster dev creates (no Kustomization or chart renders it, no HelmRelease's install.createNamespace creates it): on a cluster without it, the dry-run of flux-system/apps fails with 'namespaces \"<redacted>\" not found' and applies nothing. | Add a Namespace <redacted> manifest to flux-system/apps or to a Kustomization it dependsOn; if the cluster has it before Flux runs, ignore this finding in .tiergate.yaml (rule missing-namespace, object {kind: Namespace, name: <redacted>}).",
		"new namespace-for-release HelmRelease.helm.toolkit.fluxcd.io/default/hr: HelmRelease default/hr installs into targetNamespace <redacted>, which nothing in the cluster creates and install.createNamespace is not set: Helm's install fails with 'namespaces \"<redacted>\" not found'. | Set `install: {createNamespace: true}` on HelmRelease default/hr (apps/ks.yaml:7), or add a Namespace <redacted> manifest to a Kustomization it dependsOn.",
		"new helm-uninstall HelmRelease.helm.toolkit.fluxcd.io/default/hr: the release target of HelmRelease.helm.toolkit.fluxcd.io/default/hr changes (release name <redacted> → <redacted>, release namespace <redacted> → <redacted>), so helm-controller uninstalls release <redacted>/<redacted> before it installs the new one: what it deletes is unknown, since its chart failed to render at the base commit. | Merge in two steps: first add the annotation `helm.sh/resource-policy: keep` to the objects that must survive through the chart of HelmRelease default/hr (or its postRenderers) and let helm-controller upgrade the release; then merge this change. Helm leaves the kept objects annotated with the old release (meta.helm.sh/release-name, meta.helm.sh/release-namespace); helm-controller's install of the new release takes ownership of them, unless spec.install.disableTakeOwnership is true: then Helm refuses them ('invalid ownership metadata') and, before the second step, their two annotations must be set to the new release name and storage namespace (or disableTakeOwnership removed). Or, if the objects should go, nothing to do.",
		"existing helm-render-error HelmRelease.helm.toolkit.fluxcd.io/default/hr: HelmRelease default/hr's chart cannot be loaded: spec.chart.spec.chart \"./charts/<redacted>\" of GitRepository/flux-system/flux-system (whose artifact is the repository root) names the folder charts/<redacted>, which is not in the repository, so source-controller's HelmChart fails and helm-controller installs or upgrades nothing: the release keeps what it has. | Point HelmRelease default/hr at the folder that holds the chart's Chart.yaml (apps/ks.yaml:7): the path is relative to the root of the source's artifact, not to the HelmRelease's file; or add the folder charts/<redacted> with the chart's Chart.yaml and templates.",
		"resolved depends-on-not-found <nil>: Kustomization flux-system/ks-a dependsOn flux-system/<redacted>, which is not in the cluster: it will wait forever with 'dependency flux-system/<redacted> not found'. | Remove `- name: <redacted>` from spec.dependsOn of flux-system/ks-a, or point it at an existing Kustomization.",
		"resolved source-not-found <nil>: Kustomization flux-system/ks-a's spec.sourceRef names GitRepository flux-system/<redacted>, which no Kustomization or chart of cluster dev creates (the namespace defaults to the referrer's own): kustomize-controller marks it not Ready with 'Source 'GitRepository/flux-system/<redacted>' not found' and retries: nothing of it is built, applied or pruned, and what dependsOn it waits. Existing GitRepository sources: flux-system/flux-system. | Point spec.sourceRef of Kustomization flux-system/ks-a (apps/ks.yaml:4) at an existing GitRepository, or add GitRepository flux-system/<redacted> to the manifests of Kustomization flux-system/apps or of one it dependsOn.",
		"resolved depends-on-not-found HelmRelease.helm.toolkit.fluxcd.io/default/hr: HelmRelease default/hr dependsOn default/<redacted>, which is not a HelmRelease in the cluster, so helm-controller never installs or upgrades it: its Ready condition reads 'unable to get 'default/<redacted>' dependency: helmreleases.helm.toolkit.fluxcd.io \"<redacted>\" not found'. Not certain: Kustomization flux-system/ks-a (not reviewed: sourceRef GitRepository/flux-system/<redacted> is not the cluster's source and has no folder in .tiergate.yaml sources) may create it. | Remove `- name: <redacted>` from spec.dependsOn of HelmRelease default/hr, or point it at an existing HelmRelease.",
		"resolved missing-namespace Namespace/<redacted>: ConfigMap/<redacted>/cm of Kustomization flux-system/apps is in Namespace <redacted>, which nothing in cluster dev creates (no Kustomization or chart renders it, no HelmRelease's install.createNamespace creates it): on a cluster without it, the dry-run of flux-system/apps fails with 'namespaces \"<redacted>\" not found' and applies nothing. | Add a Namespace <redacted> manifest to flux-system/apps or to a Kustomization it dependsOn; if the cluster has it before Flux runs, ignore this finding in .tiergate.yaml (rule missing-namespace, object {kind: Namespace, name: <redacted>}).",
		"resolved namespace-for-release HelmRelease.helm.toolkit.fluxcd.io/default/hr: HelmRelease default/hr installs into targetNamespace <redacted>, which nothing in the cluster creates and install.createNamespace is not set: Helm's install fails with 'namespaces \"<redacted>\" not found'. | Set `install: {createNamespace: true}` on HelmRelease default/hr (apps/ks.yaml:7), or add a Namespace <redacted> manifest to a Kustomization it dependsOn.",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
}

// TestCommonWordSecretValue: a Secret value that is a common word ("default", also the
// namespace of most objects; "Secret", a kind) is redacted at its positions only — the
// Secret's data, its own last-applied-configuration, the field substituted from it — and
// not wherever the word stands, which would tell the value (hostile2 n-malformed, "word").
// A value that is no word ("s3cr3t-word", "Ne4rFv7tYu": digits) is still redacted by
// value, even where it also stands as literal text (a copy a kustomize replacement makes);
// so is a word ("plvqt.zr") that stands only in data, not as a name, kind or namespace.
func TestCommonWordSecretValue(t *testing.T) {
	side := func(v string) map[string]string {
		last := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"word","namespace":"default"},"stringData":{"k":"default","k2":"Secret","k3":"s3cr3t-word","k4":"Ne4rFv7tYu","k5":"plvqt.zr"}}`
		return rendertest.DevFleet("secrets", "word", map[string]string{
			"secrets/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: word\n  namespace: flux-system\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '" + last + "'\nstringData: {k: default, k2: Secret, k3: s3cr3t-word, k4: Ne4rFv7tYu, k5: plvqt.zr}\n",
			"apps/cm.yaml":        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: word-" + v + ", namespace: default}\ndata: {ns: \"${k}\", tok: \"${k3}\", note: default settings, copy: Ne4rFv7tYu, dom: plvqt.zr}\n",
		})
	}
	base, head := renderFiles(t, side("a")), renderFiles(t, side("b"))
	r := strictReview(base, head)
	var got []string
	got = append(got, changeLines("added", r.Added, true)...)
	got = append(got, changeLines("removed", r.Removed, false)...)
	got = append(got, changeLines("changed", r.Changed, true)...)
	want := []string{
		"added ConfigMap/default/word-b\n",
		"removed ConfigMap/default/word-a",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
	sec := Redacted(head.Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "secrets"}].Objects[0])
	wantLast := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"word","namespace":"default"},"stringData":{"k":"<redacted>","k2":"<redacted>","k3":"<redacted>","k4":"<redacted>","k5":"<redacted>"}}`
	if got := sec.GetAnnotations()["kubectl.kubernetes.io/last-applied-configuration"]; got != wantLast {
		t.Errorf("last-applied-configuration = %s, want %s", got, wantLast)
	}
	if got, want := sec.GetNamespace()+" "+sec.GetKind(), "flux-system Secret"; got != want {
		t.Errorf("Secret identity shows %q, want %q", got, want)
	}
	cm := Redacted(head.Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].Objects[0])
	wantData := map[string]any{"ns": "<redacted>", "tok": "<redacted>", "note": "default settings", "copy": "<redacted>", "dom": "<redacted>"}
	if d := cmp.Diff(wantData, cm.Object["data"]); d != "" {
		t.Errorf("ConfigMap data (-want +got):\n%s", d)
	}
	if got := cm.GetNamespace(); got != "default" {
		t.Errorf("ConfigMap namespace shows %q, want default", got)
	}
	if got, want := RedactGraphText("ns default, kind Secret, tok s3cr3t-word", head), "ns default, kind Secret, tok <redacted>"; got != want {
		t.Errorf("RedactGraphText = %q, want %q", got, want)
	}
}

// TestDerivedPieceInsideWord: a piece substitution derives from a Secret value
// (${NS:0:4} = "moni" of NS=monitoring) that stands inside a larger literal word is
// redacted at its positions only: the Namespace "monitoring" shows whole, not as
// "<redacted>toring", which told the piece (hostile3 h3-oracle, h3-common). Negative: a
// piece that stands inside no literal word ("ngress" of ${W:1}, "Zq8w" of a token) is still
// redacted by value, and so is a Secret's own value inside a larger word (TestShortSecretValues).
func TestDerivedPieceInsideWord(t *testing.T) {
	side := func(v string) map[string]string {
		return rendertest.DevFleet("secrets", "vars", map[string]string{
			"secrets/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: vars, namespace: flux-system}\nstringData: {NS: monitoring, W: ingress, TOK: Zq8wLk3vPx}\n",
			"apps/ns.yaml":        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: monitoring\n  labels: {v: \"" + v + "\"}\n",
			"apps/cm.yaml":        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: use, namespace: default}\ndata: {prefix: \"${NS:0:4}\", w: \"${W:1}\", t: \"${TOK:0:4}\", note: monitor}\n",
		})
	}
	base, head := renderFiles(t, side("1")), renderFiles(t, side("2"))
	r := strictReview(base, head)
	var got []string
	got = append(got, changeLines("changed", r.Changed, true)...)
	want := []string{"changed Namespace/monitoring\n" +
		"--- base\n+++ head\n@@ -2,6 +2,6 @@\n kind: Namespace\n metadata:\n   labels:\n-    v: \"1\"\n+    v: \"2\"\n   name: monitoring\n \n"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("report (-want +got):\n%s", d)
	}
	var cm *graph.Object
	for _, o := range head.Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].Objects {
		if o.ID.Kind == "ConfigMap" {
			cm = o
		}
	}
	if cm == nil {
		t.Fatal("ConfigMap use not rendered")
	}
	if d := cmp.Diff([]string{"ngress", "Zq8w", "moni"}, cm.DerivedValues); d != "" {
		t.Errorf("DerivedValues (-want +got):\n%s", d)
	}
	wantData := map[string]any{"prefix": "<redacted>", "w": "<redacted>", "t": "<redacted>", "note": "monitor"}
	if d := cmp.Diff(wantData, Redacted(cm).Object["data"]); d != "" {
		t.Errorf("ConfigMap data (-want +got):\n%s", d)
	}
	in := "Namespace/monitoring team monitoring; ngress Zq8w"
	if got, want := RedactGraphText(in, head), "Namespace/monitoring team monitoring; <redacted> <redacted>"; got != want {
		t.Errorf("RedactGraphText = %q, want %q", got, want)
	}
}
