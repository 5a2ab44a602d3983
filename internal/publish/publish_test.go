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
