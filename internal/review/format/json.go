package format

import (
	"encoding/json"
	"io"

	"github.com/tiergate/tiergate/internal/review"
)

// JSON writes r as indented JSON, field for field as DESIGN.md "Report formats" says;
// empty lists are written as [] so that readers need no null checks.
func JSON(w io.Writer, r *review.Report) error {
	c := *r
	c.Graphs = nil
	if c.Clusters == nil {
		c.Clusters = []review.ClusterSummary{}
	}
	if c.Moves == nil {
		c.Moves = nilMoves
	}
	if c.Findings == nil {
		c.Findings = nilFindings
	}
	if c.Ignored == nil {
		c.Ignored = []review.IgnoredFinding{}
	}
	for _, l := range []*[]review.ObjectChange{&c.Added, &c.Removed, &c.Changed, &c.Orphaned} {
		if *l == nil {
			*l = []review.ObjectChange{}
		}
	}
	if c.Unreviewed == nil {
		c.Unreviewed = []review.Unreviewed{}
	}
	if c.KustomizationChanges == nil {
		c.KustomizationChanges = []review.KustomizationChange{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&c)
}
