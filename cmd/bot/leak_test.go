package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/leaktest"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/publish"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// runAll runs the bot with args and returns its standard output and error together (the
// CLI's log lines go to standard error), followed by the error it returns (which main
// prints on standard error).
func runAll(t *testing.T, args ...string) string {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		out.WriteString("error: " + err.Error() + "\n")
	}
	return out.String()
}

// No Secret-derived value of the fixture appears in any output: the review as Markdown,
// JSON and SARIF, `graph` (text, json, mermaid) and `build` (yaml, json) of both commits,
// and what a forge receives (status description, check summary, annotations, line
// comments). The redaction keeps identity: the object named from the Secret still moves
// from certs to apps, shown as <redacted>-production.
func TestSecretLeaks(t *testing.T) {
	dir := "../../testdata/scenarios/secret-leaks"
	repo := commitScenario(t, dir)
	values := leaktest.Values(t, dir)
	outputs := map[string]string{}
	for _, f := range []string{"markdown", "json", "sarif"} {
		outputs["review "+f] = runAll(t, "review", "--repo", repo, "--base", "HEAD~1", "--head", "HEAD", "--format", f)
	}
	for _, rev := range []string{"HEAD~1", "HEAD"} {
		for _, f := range []string{"text", "json", "mermaid"} {
			outputs["graph "+rev+" "+f] = runAll(t, "graph", "--repo", repo, "--rev", rev, "--format", f)
		}
		for _, f := range []string{"yaml", "json"} {
			outputs["build "+rev+" "+f] = runAll(t, "build", "--repo", repo, "--rev", rev, "--format", f)
		}
	}
	base, err := pipeline.ReadDir(dir+"/base", graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	head, err := pipeline.ReadDir(dir+"/head", graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := pipeline.Trees(context.Background(), base, head, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	outputs["status description"] = publish.Describe(res.Report)
	outputs["check summary"] = publish.CheckSummary(outputs["review markdown"])
	ann, _ := json.Marshal(publish.Annotations(res.Report))
	outputs["annotations"] = string(ann)
	lines, _ := json.Marshal(publish.LineComments(res.Report, nil))
	outputs["line comments"] = string(lines)

	noLeaks(t, outputs, values)
	// Identity survives the redaction: the moved objects are matched across the commits,
	// the one named from a 2-byte value (${REGION}-edge) too, redacted at its position.
	var moves []string
	for _, m := range res.Report.Moves {
		moves = append(moves, m.Object.String()+" "+m.From+" -> "+m.To)
	}
	wantMoves := []string{
		"ConfigMap/default/<redacted>-production flux-system/certs -> flux-system/apps",
		"ConfigMap/default/<redacted>-edge flux-system/certs -> flux-system/apps",
	}
	if d := cmp.Diff(wantMoves, moves); d != "" {
		t.Errorf("moves (-want +got):\n%s", d)
	}
	var rules []string
	for _, f := range res.Report.Findings {
		rules = append(rules, f.Rule+" "+f.Object.String())
	}
	wantRules := []string{
		"prune-transient ConfigMap/default/<redacted>-production",
		"prune-transient ConfigMap/default/<redacted>-edge",
		"tier-move ConfigMap/default/<redacted>-production",
		"tier-move ConfigMap/default/<redacted>-edge",
		"substitution-type-change ConfigMap/default/app-settings",
		"substitution-type-change HelmRelease.helm.toolkit.fluxcd.io/default/leaky",
		"helm-render-approximate HelmRelease.helm.toolkit.fluxcd.io/default/leaky",
	}
	if d := cmp.Diff(wantRules, rules); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	// The Secret's number 73519 made the quoted "${PIN}" an integer: the finding names the
	// variable and the type, not the value.
	for _, f := range res.Report.Findings {
		if want := "data.pin of ConfigMap/default/app-settings becomes an integer after postBuild substitution of ${PIN}: Flux substitutes the object's YAML text and parses it again, so quotes around the expression do not survive; the field holds strings only, so the server-side apply dry-run fails with 'expected string' and Flux applies none of flux-system/apps."; f.Rule == "substitution-type-change" && f.Object.Kind == "ConfigMap" && (f.Message != want || f.Line != 21) {
			t.Errorf("substitution-type-change at line %d: %q, want line 21: %q", f.Line, f.Message, want)
		}
	}
	// Substituted values are redacted at their fields whatever their length (REGION is
	// "eu"), through nested and chained operators.
	_, settings, _ := strings.Cut(outputs["build HEAD yaml"], "apps/config.yaml:2\n")
	settings, _, _ = strings.Cut(settings, "---")
	wantSettings := "apiVersion: v1\ndata:\n  chain: <redacted>\n  dashed: <redacted>\n  fallback: <redacted>\n  nested: <redacted>\n  pin: <redacted>\n  pre: pre-<redacted>\n" +
		"  prefix: <redacted>\n  region: <redacted>\n  replaced: <redacted>\n  upper: <redacted>\n  zone: <redacted>-1\nkind: ConfigMap\nmetadata:\n" +
		"  annotations:\n    note: token <redacted>\n  labels:\n    domain: <redacted>\n  name: app-settings\n  namespace: default\n"
	if settings != wantSettings {
		t.Errorf("build: ConfigMap app-settings is\n%s\nwant\n%s", settings, wantSettings)
	}
	// The chart of HelmRelease default/leaky renders its inline values, substituted from the
	// Secret through the same operators: the chart sees placeholders there (as for valuesFrom
	// Secrets), so what its templates make of them (quote, upper, trunc, replace, b64enc,
	// printf, sha256sum) is made of placeholders. A placeholder is random per process.
	ph := `tiergate-redacted-[0-9a-f]{8}`
	for _, c := range []struct{ template, want string }{
		{"cm.yaml", "apiVersion: v1\ndata:\n  dashed: PH\n  domain: PH\n  fallback: PH\n  hosts: map\\[PH:PH\\]\n  lower: PH\n  pin: \"NUM\"\n  port: \"NUM\"\n  prefix: PH\n  region: PH\n  replaced: PH\n  tls: \"true\"\n  upper: PH\nkind: ConfigMap\n"},
		{"sprig.yaml", "apiVersion: v1\ndata:\n  b64: dGllcmdhdGUtcmVkYWN0ZWQt[A-Za-z0-9+/=]{12}\n  lower: PH\n  printf: PH:PH\n  region: TIERGATE-REDACTED-[0-9A-F]{8}\n  replace: PH\n" +
			"  sha: [0-9a-f]{64}\n  trunc: tiergate-\n  upper: TIERGATE-REDACTED-[0-9A-F]{8}\nkind: ConfigMap\n"},
		// valuesFrom Secret leaky-values: the keys of its free-form map hosts and its number
		// port, and the number PIN substitution wrote, reach the chart as placeholders (a
		// number as a number of as many digits); tls, a boolean, keeps its value.
		{"keys.yaml", `apiVersion: v1\ndata:\n  json: '\{"dashed":"PH","domain":"PH","fallback":"PH","hosts":\{"PH":"PH"\},"lower":"PH","pin":NUM,"port":NUM,"prefix":"PH","region":"PH","replaced":"PH","tls":true,"upper":"PH"\}'\n` +
			"  keys: PH\n  pin: [A-Za-z0-9+/=]{8}\n  pinsha: [0-9a-f]{64}\n  port: [A-Za-z0-9+/=]{8}\n  portsha: [0-9a-f]{64}\n  tls: \"true\"\nkind: ConfigMap\n"},
	} {
		_, obj, _ := strings.Cut(outputs["build HEAD yaml"], "template leaky/templates/"+c.template+"\n")
		obj, _, _ = strings.Cut(obj, "---")
		want := strings.ReplaceAll(strings.ReplaceAll(c.want, "PH", ph), "NUM", "[1-9][0-9]{4}")
		if re := regexp.MustCompile("^" + want); !re.MatchString(obj) {
			t.Errorf("build: the chart's %s renders\n%s\nwant it to match\n%s", c.template, obj, re)
		}
	}
	// Values kustomize replacements copy from a Secret into names (repl-names/): the
	// Namespace named from the 2-byte NS, the ConfigMap named from TEAM in namespace NS, and
	// PIECE as one piece of its host, and the var WEAPON in a Deployment's env, at their
	// positions in build and the review.
	_, names, _ := strings.Cut(outputs["build HEAD yaml"], "Kustomization flux-system/repl-names, repl-names/objects.yaml:2\n")
	names, _, _ = strings.Cut(names, "# cluster dev, Kustomization flux-system/relay")
	wantNames := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: <redacted>\n---\n" +
		"# cluster dev, Kustomization flux-system/repl-names, repl-names/objects.yaml:6\n" +
		"apiVersion: v1\ndata:\n  host: api.<redacted>.example.com\n  owner: <redacted>\nkind: ConfigMap\nmetadata:\n  name: <redacted>\n  namespace: <redacted>\n---\n" +
		"# cluster dev, Kustomization flux-system/repl-names, repl-names/deploy.yaml:2\n" +
		"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: armory\n  namespace: default\nspec:\n  selector:\n    matchLabels:\n      app: armory\n" +
		"  template:\n    metadata:\n      labels:\n        app: armory\n    spec:\n      containers:\n      - env:\n        - name: DB\n          value: <redacted>-db\n" +
		"        image: nginx:1.27\n        name: armory\n---\n"
	if names != wantNames {
		t.Errorf("build: repl-names is\n%s\nwant\n%s", names, wantNames)
	}
	for _, line := range []string{
		"- dev · ConfigMap/&lt;redacted&gt;/&lt;redacted&gt; · flux-system/repl-names · repl-names/objects.yaml:6\n\n</details>\n\n#### Removed objects",
		"- dev · ConfigMap/&lt;redacted&gt;/&lt;redacted&gt; · flux-system/repl-names · repl-names/objects.yaml:6\n\n</details>",
	} {
		if !strings.Contains(outputs["review markdown"], line) {
			t.Errorf("review markdown lacks %q", line)
		}
	}
	var report struct{ Added, Removed []map[string]any }
	if err := json.Unmarshal([]byte(outputs["review json"]), &report); err != nil {
		t.Fatal(err)
	}
	var wantEntry map[string]any
	_ = json.Unmarshal([]byte(`{"cluster":"dev","object":{"group":"","kind":"ConfigMap","namespace":"<redacted>","name":"<redacted>"},"kustomization":"flux-system/repl-names","file":"repl-names/objects.yaml","line":6}`), &wantEntry)
	for name, list := range map[string][]map[string]any{"added": report.Added, "removed": report.Removed} {
		n := 0
		for _, e := range list {
			if cmp.Equal(e, wantEntry) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("review json: %d %s entries %s, want 1", n, name, wantEntry)
		}
	}
}

// TestSecretErrorLeaks sweeps every output of each case of
// testdata/scenarios/secret-errors (hostile5: fingerprints, error texts, the Kustomization
// changes diff) for the values its leak-values.txt lists: the review as Markdown, JSON and
// SARIF, and graph (text, json, mermaid) and build (yaml, json) of both sides, with their
// standard error and returned error.
func TestSecretErrorLeaks(t *testing.T) {
	for _, c := range []string{"fp2", "err", "rerr", "relay", "ord", "r10", "r13", "r16", "r17", "r21", "r23"} {
		t.Run(c, func(t *testing.T) {
			dir := "../../testdata/scenarios/secret-errors/" + c
			values := leaktest.Values(t, dir)
			outputs := everyOutput(t, dir)
			noLeaks(t, outputs, values)
		})
	}
}

// everyOutput runs, with --no-cache, the review of dir's base and head as Markdown, JSON and
// SARIF, and graph (text, json, mermaid) and build (yaml, json) of each side: name → what
// the command wrote on standard output and standard error, with its returned error.
func everyOutput(t *testing.T, dir string) map[string]string {
	t.Helper()
	outputs := map[string]string{}
	for _, f := range []string{"markdown", "json", "sarif"} {
		outputs["review "+f] = runAll(t, "review", "--no-cache", "--base-dir", dir+"/base", "--head-dir", dir+"/head", "--format", f, "--fail-on", "never")
	}
	for _, side := range []string{"base", "head"} {
		for _, f := range []string{"text", "json", "mermaid"} {
			outputs["graph "+side+" "+f] = runAll(t, "graph", "--no-cache", "--dir", dir+"/"+side, "--format", f)
		}
		for _, f := range []string{"yaml", "json"} {
			outputs["build "+side+" "+f] = runAll(t, "build", "--no-cache", "--dir", dir+"/"+side, "--format", f)
		}
	}
	return outputs
}

// noLeaks fails t for each output (name → text) that is empty, so its sweep cannot fail,
// or that shows one of values, the fixture's Secret-derived values (leaktest.Values).
func noLeaks(t *testing.T, outputs map[string]string, values []string) {
	t.Helper()
	for name, out := range outputs {
		if out == "" {
			t.Errorf("%s: no output", name)
		}
		for _, v := range values {
			if strings.Contains(out, v) {
				t.Errorf("%s shows the Secret-derived value %q", name, v)
			}
		}
	}
}

// TestLibraryLogsWithheld runs every command of hostile6 cases r16 (kustomize's
// MakePrimitiveReplacer logs a vars map of Secret values) and r17 (kyaml's label selector
// logs a label value a replacement copied from a Secret) with Go's standard log pointed at
// a buffer, as main's stderr: nothing reaches it, and the command's standard error holds
// only the count of withheld lines. Before, the lines quoted Vahdlongv4l on stderr.
func TestLibraryLogsWithheld(t *testing.T) {
	var stderr bytes.Buffer
	prev := log.Writer()
	log.SetOutput(&stderr)
	defer log.SetOutput(prev)
	want := map[string]string{
		"r16 review": "tiergate: 4 library log lines withheld (they may quote Secret values)\n",
		"r16 build":  "tiergate: 2 library log lines withheld (they may quote Secret values)\n",
		"r16 graph":  "tiergate: 2 library log lines withheld (they may quote Secret values)\n",
		"r17 review": "tiergate: 4 library log lines withheld (they may quote Secret values)\n",
		"r17 build":  "tiergate: 2 library log lines withheld (they may quote Secret values)\n",
		"r17 graph":  "tiergate: 2 library log lines withheld (they may quote Secret values)\n",
	}
	for _, c := range []string{"r16", "r17"} {
		dir := "../../testdata/scenarios/secret-errors/" + c
		outs := map[string]string{
			c + " review": runAll(t, "review", "--no-cache", "--base-dir", dir+"/base", "--head-dir", dir+"/head", "--format", "json", "--fail-on", "never"),
			c + " build":  runAll(t, "build", "--no-cache", "--dir", dir+"/head"),
			c + " graph":  runAll(t, "graph", "--no-cache", "--dir", dir+"/head"),
		}
		for name, out := range outs {
			if n := strings.Count(out, want[name]); n != 1 {
				t.Errorf("%s: %d lines %q in\n%s", name, n, want[name], out)
			}
			if strings.Contains(out, "Vahdlongv4l") {
				t.Errorf("%s shows Vahdlongv4l", name)
			}
		}
	}
	// A base without any library log line prints no count (negative).
	if out := runAll(t, "build", "--no-cache", "--dir", "../../testdata/scenarios/secret-errors/r10/base"); strings.Contains(out, "withheld") {
		t.Errorf("build r10 base counts withheld lines:\n%s", out)
	}
	if stderr.Len() != 0 {
		t.Errorf("the standard log received\n%s", stderr.String())
	}
}

// TestSecretErrorTexts pins the build errors of hostile6 cases r10 (envsubst's YAMLToJSON
// quoting the key a Secret variable parsed into), r21 (a replacement quoting the base64 of
// a generated Secret's value) and r23 (a malformed Secret's list key): each shows
// <redacted> where the piece stood. Negative: the same malformed key in a ConfigMap keeps
// its dump, so a plain manifest's error still says what is wrong.
func TestSecretErrorTexts(t *testing.T) {
	const dir = "../../testdata/scenarios/secret-errors/"
	for c, lines := range map[string][]string{
		"r10": {
			"Kustomization flux-system/f1 (cluster dev): f1/cm.yaml:2: post build failed for 'ConfigMap.v1.[noGrp]/cm-f1.default': envsubst error: YAMLToJSON: yaml: invalid map key: <redacted>\n",
			"Kustomization flux-system/f2 (cluster dev): f2/cm.yaml:2: post build failed for 'ConfigMap.v1.[noGrp]/cm-f2.default': envsubst error: YAMLToJSON: yaml: invalid map key: <redacted>\n",
			"Kustomization flux-system/f5 (cluster dev): f5/cm.yaml:2: post build failed for 'ConfigMap.v1.[noGrp]/cm-f5.default': envsubst error: YAMLToJSON: yaml: invalid map key: <redacted>\n",
		},
		"r21": {
			"Kustomization flux-system/i1 (cluster dev): i1/kustomization.yaml:1: options.index 3 is out of bounds for value <redacted>\n",
			"Kustomization flux-system/i2 (cluster dev): i2/kustomization.yaml:1: options.index 3 is out of bounds for value <redacted>\n",
			"Kustomization flux-system/i3 (cluster dev): i3/kustomization.yaml:1: options.index 3 is out of bounds for value <redacted>\n",
		},
		"r23": {"Kustomization flux-system/s1 (cluster dev): s1/s.yaml:2: yaml: invalid map key: <redacted>\n"},
	} {
		out := runAll(t, "build", "--no-cache", "--dir", dir+c+"/head")
		for _, l := range lines {
			if !strings.Contains(out, l) {
				t.Errorf("build %s lacks %q in\n%s", c, l, out)
			}
		}
	}
	tree := t.TempDir()
	if err := os.CopyFS(tree, os.DirFS(dir+"r23/head")); err != nil {
		t.Fatal(err)
	}
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\ndata:\n  ? [Ksahd9zz]\n  : v\n"
	if err := os.WriteFile(filepath.Join(tree, "s1/s.yaml"), []byte(cm), 0o644); err != nil {
		t.Fatal(err)
	}
	want := `Kustomization flux-system/s1 (cluster dev): s1/s.yaml:2: yaml: invalid map key: []interface {}{"Ksahd9zz"}` + "\n"
	if out := runAll(t, "build", "--no-cache", "--dir", tree); !strings.Contains(out, want) {
		t.Errorf("build of a malformed ConfigMap lacks %q in\n%s", want, out)
	}
}

// TestRedactedKeyCollision builds and reviews hostile6 case r13: literal keys
// "<redacted>" and "<redacted, changed>" beside a key ${TOK} substituted from a Secret.
// Every entry stays visible: the Secret's key shows as "<redacted> (2)" in build and
// "<redacted, changed> (2)" on the review's head side. Before, build lost
// literal-redacted-key and the head side lost lit2.
func TestRedactedKeyCollision(t *testing.T) {
	dir := "../../testdata/scenarios/secret-errors/r13"
	build := runAll(t, "build", "--no-cache", "--dir", dir+"/head")
	want := "data:\n  <redacted, changed>: lit2\n  <redacted>: literal-redacted-key\n  <redacted> (2): fromsecret\n  SS: a\n  ZZ: z\n  k<redacted>: fromsecret2\nkind: ConfigMap\n"
	if !strings.Contains(build, want) {
		t.Errorf("build lacks\n%s\nin\n%s", want, build)
	}
	review := runAll(t, "review", "--no-cache", "--base-dir", dir+"/base", "--head-dir", dir+"/head", "--fail-on", "never")
	want = " data:\n   <redacted, changed>: lit2\n+  <redacted, changed> (2): fromsecret\n   <redacted>: literal-redacted-key\n-  <redacted> (2): fromsecret\n   SS: a\n   ZZ: z\n-  k<redacted>: fromsecret2\n+  k<redacted, changed>: fromsecret2\n"
	if !strings.Contains(review, want) {
		t.Errorf("review lacks\n%s\nin\n%s", want, review)
	}
}
