package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/leaktest"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/publish"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// runAll runs the bot with args and returns its standard output and error together (the
// CLI's log lines go to standard error).
func runAll(t *testing.T, args ...string) string {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	_ = root.Execute()
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
	// Identity survives the redaction: the moved object is matched across the commits.
	var moves []string
	for _, m := range res.Report.Moves {
		moves = append(moves, m.Object.String()+" "+m.From+" -> "+m.To)
	}
	if want := []string{"ConfigMap/default/<redacted>-production flux-system/certs -> flux-system/apps"}; strings.Join(moves, "\n") != strings.Join(want, "\n") {
		t.Errorf("moves %q, want %q", moves, want)
	}
	var rules []string
	for _, f := range res.Report.Findings {
		rules = append(rules, f.Rule+" "+f.Object.String())
	}
	if want := "prune-transient ConfigMap/default/<redacted>-production\ntier-move ConfigMap/default/<redacted>-production"; strings.Join(rules, "\n") != want {
		t.Errorf("findings %q, want %q", rules, want)
	}
	// The chart of HelmRelease default/leaky renders its inline values, substituted from the
	// Secret through the same operators: every one is redacted in its output.
	_, chartObj, _ := strings.Cut(outputs["build HEAD yaml"], "template leaky/templates/cm.yaml\n")
	chartObj, _, _ = strings.Cut(chartObj, "---")
	want := "apiVersion: v1\ndata:\n  dashed: <redacted>\n  domain: <redacted>\n  fallback: <redacted>\n  lower: <redacted>\n  prefix: <redacted>\n  replaced: <redacted>\n  upper: <redacted>\nkind: ConfigMap\n"
	if !strings.HasPrefix(chartObj, want) {
		t.Errorf("build: the chart's ConfigMap is\n%s\nwant it to start with\n%s", chartObj, want)
	}
	if !strings.Contains(outputs["build HEAD yaml"], "upper: <redacted>") {
		t.Errorf("build: the substituted ${TOKEN^^} is not shown as <redacted>:\n%s", outputs["build HEAD yaml"])
	}
}
