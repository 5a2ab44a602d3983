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
