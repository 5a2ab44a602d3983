package rules

import (
	"fmt"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// tierMove notes every object whose owner changes: Flux relabels it to the new owner and
// the old owner's inventory drops it (flux-semantics.md §4).
func tierMove(base, head *graph.Cluster, _ *Env) []Finding {
	var out []Finding
	for _, m := range Moves(base, head) {
		f := objectFinding("tier-move", Notice, head.Name, m.head, m.head.Owner)
		f.Message = fmt.Sprintf("%s moves from Kustomization %s to %s.", m.Object, Owner(m.From, m.FromHelmRelease), Owner(m.To, m.ToHelmRelease))
		f.Suggestion = "No action needed if the move is intended: a move that deletes the object on the way is reported as prune-transient, or helm-uninstall for a chart."
		out = append(out, f)
	}
	return out
}
