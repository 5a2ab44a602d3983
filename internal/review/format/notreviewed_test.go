package format

import (
	"fmt"
	"testing"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review"
)

// TestNotReviewedNamed: a Kustomization tiergate's own limit stopped is named with its
// reason in the comment, and painted amber (not reviewed), not red (render error); one
// that failed to render stays red, and one already in the partial note is not repeated.
func TestNotReviewedNamed(t *testing.T) {
	limit := "stopped by tiergate's own limit, not by Flux (raise the flag it names to review this Kustomization): more than 10 documents (--max-build-documents)"
	r := &review.Report{
		Clusters: []review.ClusterSummary{{Name: "dev", Kustomizations: 4}},
		Unreviewed: []review.Unreviewed{
			{Cluster: "dev", Kind: "Kustomization", Name: "flux-system/apps", Kustomization: "flux-system/apps", Reason: limit},
		},
		Graphs: []review.ClusterGraph{{Cluster: "dev", Nodes: []review.GraphNode{
			{Kustomization: "flux-system/flux-system"},
			{Kustomization: "flux-system/apps", Parent: "flux-system/flux-system", Failed: true},
			{Kustomization: "flux-system/infra", Parent: "flux-system/flux-system", Failed: true},
		}}},
	}
	want := "\n> ⚠️ <b>Not reviewed</b>: 1 object was not rendered, so its findings are unknown:\n" +
		"> - dev · flux-system/apps: stopped by tiergate's own limit, not by Flux (raise the flag it names to review this Kustomization): more than 10 documents (--max-build-documents)\n"
	if got := partialNote(r); got != want {
		t.Errorf("partialNote:\n%q\nwant\n%q", got, want)
	}
	wantChart := "flowchart LR\n" +
		"  k_flux_system_flux_system[\"flux-system/flux-system\"]\n" +
		"  k_flux_system_apps[\"flux-system/apps\"]\n" +
		"  k_flux_system_infra[\"flux-system/infra\"]\n" +
		"  k_flux_system_flux_system -.-> k_flux_system_apps\n" +
		"  k_flux_system_flux_system -.-> k_flux_system_infra\n" +
		"  classDef failed fill:#ffebe9,stroke:#cf222e,color:#82071e\n  class k_flux_system_infra failed\n" +
		"  classDef unreviewed fill:#fff8c5,stroke:#9a6700,color:#4d2d00\n  class k_flux_system_apps unreviewed\n"
	if got := flowchart(r, r.Graphs[0]); got != wantChart {
		t.Errorf("flowchart:\n%s\nwant\n%s", got, wantChart)
	}

	// Past maxNotReviewedLines the note counts the rest.
	many := &review.Report{}
	wantMany := "\n> ⚠️ <b>Not reviewed</b>: 12 objects were not rendered, so their findings are unknown:\n"
	for i := range 12 {
		name := fmt.Sprintf("flux-system/k%d", i)
		many.Unreviewed = append(many.Unreviewed, review.Unreviewed{Cluster: "dev", Kind: "Kustomization", Name: name, Kustomization: name, Reason: "stopped"})
		if i < maxNotReviewedLines {
			wantMany += "> - dev · " + name + ": stopped\n"
		}
	}
	wantMany += "> - and 2 more (the JSON report's `unreviewed` lists them all)\n"
	if got := partialNote(many); got != wantMany {
		t.Errorf("partialNote of 12:\n%q\nwant\n%q", got, wantMany)
	}

	// Negative: a Kustomization the partial note already names is not listed twice.
	r.Clusters[0].Partial = []graph.Partial{{Kustomization: "flux-system/apps", Reason: "remote resources not fetched"}}
	r.Unreviewed[0].Reason = "remote resources not fetched: only the local part is reviewed"
	wantPartial := "\n> ⚠️ <b>Partial render</b>: 1 Kustomization is reviewed in part (not everything it applies was rendered), so findings may be missing:\n" +
		"> - dev · flux-system/apps: remote resources not fetched\n"
	if got := partialNote(r); got != wantPartial {
		t.Errorf("partialNote with partial:\n%q\nwant\n%q", got, wantPartial)
	}
}
