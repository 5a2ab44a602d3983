package format

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// ignoredReport has one finding and one that .tiergate.yaml ignored.
func ignoredReport() *review.Report {
	return &review.Report{
		Base: "1111111", Head: "2222222",
		Clusters: []review.ClusterSummary{{Name: "dev", Root: "clusters/dev", Kustomizations: 2, Objects: 3}},
		Findings: []rules.Finding{{Rule: "tier-move", Severity: rules.Notice, Status: rules.StatusNew, Cluster: "dev",
			Object: obj("", "ConfigMap", "web", "a"), Kustomization: "flux-system/apps", Message: "moves", File: "apps/a.yaml", Line: 1}},
		Ignored: []review.IgnoredFinding{{
			Finding: rules.Finding{Rule: "prune-transient", Severity: rules.Warning, Status: rules.StatusNew, Cluster: "dev",
				Object: obj("", "ConfigMap", "web", "legacy"), Kustomization: "flux-system/apps", Message: "may be deleted", Suggestion: "annotate", File: "apps/legacy.yaml", Line: 2},
			IgnoredBy: ".tiergate.yaml:4", Reason: "recreated by hand"}},
	}
}

func TestIgnoredFindingsInFormats(t *testing.T) {
	r := ignoredReport()

	var buf bytes.Buffer
	if err := JSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Findings []map[string]any `json:"findings"`
		Ignored  []map[string]any `json:"ignored"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	wantIgnored := []map[string]any{{"rule": "prune-transient", "severity": "warning", "status": "new", "cluster": "dev",
		"object": map[string]any{"group": "", "kind": "ConfigMap", "namespace": "web", "name": "legacy"}, "kustomization": "flux-system/apps",
		"message": "may be deleted", "suggestion": "annotate", "file": "apps/legacy.yaml", "line": 2.0,
		"ignoredBy": ".tiergate.yaml:4", "reason": "recreated by hand"}}
	if d := cmp.Diff(wantIgnored, doc.Ignored); d != "" {
		t.Errorf("JSON ignored (-want +got):\n%s", d)
	}
	if len(doc.Findings) != 1 || doc.Findings[0]["rule"] != "tier-move" {
		t.Errorf("JSON findings = %v, want the tier-move finding only", doc.Findings)
	}

	md := Markdown(r, MarkdownOptions{})
	wantStats := "\n0 existing, 0 resolved · 1 cluster, 2 Kustomizations, 3 objects · 1 finding ignored by .tiergate.yaml · `1111111` → `2222222`\n"
	if !strings.Contains(md, wantStats) {
		t.Errorf("markdown has no line %q:\n%s", wantStats, md)
	}
	if !strings.HasPrefix(md, "<!-- tiergate -->\n### ✅ tiergate: 1 new notice\n") {
		t.Errorf("verdict counts the ignored warning:\n%s", md)
	}

	buf.Reset()
	if err := SARIF(&buf, r, "test"); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID       string           `json:"ruleId"`
				Suppressions []map[string]any `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	type res struct {
		Rule        string
		Suppression []map[string]any
	}
	var got []res
	for _, r := range log.Runs[0].Results {
		got = append(got, res{r.RuleID, r.Suppressions})
	}
	// Every suppression field is set: the SARIF 2.1.0 schema refuses null for location and
	// guid, which go-sarif writes for unset ones.
	want := []res{{"tier-move", nil}, {"prune-transient", []map[string]any{{
		"kind": "external", "status": "accepted",
		"justification": "recreated by hand (ignored by .tiergate.yaml:4)",
		"guid":          "8e5d28e2-b32c-588b-9dc1-f4b157efefc1", // UUIDv5: stable across runs
		"location": map[string]any{"physicalLocation": map[string]any{
			"artifactLocation": map[string]any{"uri": ".tiergate.yaml", "uriBaseId": "%SRCROOT%"},
			"region":           map[string]any{"startLine": float64(4)},
		}},
	}}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("SARIF results (-want +got):\n%s", d)
	}
}

func TestJSONIgnoredIsAList(t *testing.T) {
	var buf bytes.Buffer
	if err := JSON(&buf, &review.Report{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"ignored": []`) {
		t.Errorf("no empty ignored list in %s", buf.String())
	}
}
