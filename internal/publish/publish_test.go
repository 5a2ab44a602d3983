package publish

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/rules"
)

func TestAnnotations(t *testing.T) {
	rep := &review.Report{Findings: []rules.Finding{
		{Rule: "prune-transient", Severity: rules.Error, Status: rules.StatusNew, File: "a.yaml", Line: 3, Message: "pruned", Suggestion: "add it back"},
		{Rule: "prune-transient", Severity: rules.Error, Status: rules.StatusNew, File: "a.yaml", Line: 3, Message: "pruned", Suggestion: "add it back"},
		{Rule: "orphan", Severity: rules.Warning, Status: rules.StatusNew, File: "b.yaml", Line: 7, Message: "orphaned"},
		{Rule: "tier-move", Severity: rules.Notice, Status: rules.StatusNew, File: "c.yaml", Line: 1, Message: "moved"},
		{Rule: "orphan", Severity: rules.Warning, Status: rules.StatusExisting, File: "b.yaml", Line: 9, Message: "old"},
		{Rule: "render-error", Severity: rules.Error, Status: rules.StatusNew, Message: "no file"},
	}}
	want := []forge.Annotation{
		{Path: "a.yaml", StartLine: 3, EndLine: 3, Level: "failure", Title: "prune-transient", Message: "pruned\nadd it back"},
		{Path: "b.yaml", StartLine: 7, EndLine: 7, Level: "warning", Title: "orphan", Message: "orphaned"},
		{Path: "c.yaml", StartLine: 1, EndLine: 1, Level: "notice", Title: "tier-move", Message: "moved"},
	}
	if diff := cmp.Diff(want, Annotations(rep)); diff != "" {
		t.Fatalf("annotations (-want +got):\n%s", diff)
	}
}

// TestLineCommentsOnePerCause: a finding two clusters share is one comment naming both.
func TestLineCommentsOnePerCause(t *testing.T) {
	shared := rules.Finding{Rule: "render-error", Severity: rules.Error, Status: rules.StatusNew, File: "apps/base/kustomization.yaml", Line: 3,
		Message: "fails to build", Suggestion: "fix it", Clusters: []string{"production", "staging"}}
	prod, staging := shared, shared
	prod.Cluster, staging.Cluster = "production", "staging"
	alone := rules.Finding{Rule: "render-error", Severity: rules.Error, Status: rules.StatusNew, Cluster: "staging", File: "apps/base/kustomization.yaml", Line: 3, Message: "other"}
	rep := &review.Report{Findings: []rules.Finding{prod, staging, alone}}
	want := []forge.LineComment{
		{Path: "apps/base/kustomization.yaml", Line: 3, Body: "**render-error** (error, clusters production, staging): fails to build\n\nfix it"},
		{Path: "apps/base/kustomization.yaml", Line: 3, Body: "**render-error** (error): other"},
	}
	got := LineComments(rep, map[string]map[int]bool{"apps/base/kustomization.yaml": {3: true}})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("line comments (-want +got):\n%s", diff)
	}
}

func TestDescribe(t *testing.T) {
	unrev := []review.Unreviewed{{Cluster: "dev", Kind: "Kustomization", Name: "flux-system/apps"}, {Cluster: "dev", Kind: "Kustomization", Name: "flux-system/infra"}}
	many := []rules.Finding{}
	for i := 0; i < 1000; i++ {
		many = append(many, rules.Finding{Severity: rules.Error, Status: rules.StatusNew}, rules.Finding{Severity: rules.Warning, Status: rules.StatusNew},
			rules.Finding{Severity: rules.Notice, Status: rules.StatusNew}, rules.Finding{Severity: rules.None, Status: rules.StatusNew})
	}
	for _, c := range []struct {
		name string
		rep  *review.Report
		want string
	}{
		{"clean", &review.Report{Clusters: []review.ClusterSummary{{Kustomizations: 79}}}, "no new findings · 1 cluster"},
		{"unreviewed", &review.Report{Clusters: []review.ClusterSummary{{Kustomizations: 79}}, Unreviewed: unrev},
			"2 of 79 Kustomizations not reviewed · no new findings · 1 cluster"},
		{"unreviewed with findings", &review.Report{Clusters: []review.ClusterSummary{{Kustomizations: 1_200}, {Kustomizations: 34}}, Unreviewed: unrev,
			Findings: many[:2]}, "2 of 1,234 Kustomizations not reviewed · 1 new error, 1 new warning · 2 clusters"},
		{"too long for GitHub: clusters dropped", &review.Report{Clusters: []review.ClusterSummary{{Kustomizations: 12_345}, {}}, Unreviewed: unrev,
			Findings: many}, "2 of 12,345 Kustomizations not reviewed · 1,000 new errors, 1,000 new warnings, 1,000 new notices, 1,000 new findings without severity"},
	} {
		got := Describe(c.rep)
		if got != c.want {
			t.Errorf("%s: Describe = %q (%d bytes), want %q", c.name, got, len(got), c.want)
		}
		if len(got) > maxDescription {
			t.Errorf("%s: %d bytes, more than %d", c.name, len(got), maxDescription)
		}
	}
}
