package review

import (
	"fmt"
	"slices"

	"github.com/tiergate/tiergate/internal/review/rules"
)

// groupCauses lists, on each finding, every cluster where the same cause gives the same
// finding: several clusters applying one shared folder report one broken file several
// times. Each copy stays in Findings under its own cluster (so a consumer filtering by
// cluster still finds it); the first copy of a cause (its Cluster is Clusters[0]) is the
// one the comment, the counts and the line comments show.
func groupCauses(fs []rules.Finding) {
	clusters := map[string][]string{}
	for _, f := range fs {
		k := causeKey(f)
		if !slices.Contains(clusters[k], f.Cluster) {
			clusters[k] = append(clusters[k], f.Cluster)
		}
	}
	for i := range fs {
		if cs := clusters[causeKey(fs[i])]; len(cs) > 1 {
			fs[i].Clusters = slices.Sorted(slices.Values(cs))
		}
	}
}

// causeKey is a finding without its cluster: the same rule, status and text at the same place.
func causeKey(f rules.Finding) string {
	obj := ""
	if f.Object != nil {
		obj = f.Object.String()
	}
	return fmt.Sprintf("%s\x00%s\x00%d\x00%s\x00%s\x00%s\x00%s\x00%s:%d\x00%s",
		f.Rule, f.Status, f.Severity, f.Kustomization, obj, f.Message, f.Suggestion, f.File, f.Line, f.DependsOn)
}

// FirstOfCause reports whether f is the copy of its cause that a reader is shown: the only
// one, or the one of the first of its clusters.
func FirstOfCause(f rules.Finding) bool {
	return len(f.Clusters) == 0 || f.Clusters[0] == f.Cluster
}
