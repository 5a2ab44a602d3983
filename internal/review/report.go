package review

import (
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// Report is the machine contract of DESIGN.md "Report formats" (--format json).
type Report struct {
	Base     string           `json:"base"`
	Head     string           `json:"head"`
	Clusters []ClusterSummary `json:"clusters"`
	// Discovery says how the head's clusters were found: "roots", "config", or
	// "uncovered-folders" when the repository has no Flux root at all.
	Discovery graph.Discovery `json:"discovery,omitempty"`
	Moves     []rules.Move    `json:"moves"`
	Findings  []rules.Finding `json:"findings"`
	// Ignored are the findings that .tiergate.yaml's ignore entries took out of Findings;
	// nothing counts them towards the verdict.
	Ignored []IgnoredFinding `json:"ignored"`
	Added   []ObjectChange   `json:"added"`
	Removed []ObjectChange   `json:"removed"`
	Changed []ObjectChange   `json:"changed"`
	// Orphaned lists the objects of a chart that head no longer renders and that Helm
	// leaves in the cluster (rules.HelmLeaves: helm.sh/resource-policy: keep, a CRD of
	// crds/): not removed from the cluster, but no longer managed; Reason says why.
	Orphaned []ObjectChange `json:"orphaned"`
	// Unreviewed lists what was not built in full at head, so that its findings are unknown;
	// a verdict with any is never a plain pass.
	Unreviewed []Unreviewed `json:"unreviewed"`
	// Unread lists, sorted, the manifests (YAML or JSON files) the change adds, removes or
	// edits that no cluster reads at either commit (unreadFiles: read by no build, as
	// Kustomization.Reads records, and in no in-repo chart; from folders when a build's
	// reads are not recorded), so that a change made of
	// them is not taken for one reviewed and safe; empty when what the clusters read is not
	// known.
	Unread []string `json:"unread,omitempty"`
	// Releases lists the HelmReleases whose chart or values change (both sides rendered).
	Releases []ReleaseChange `json:"releases,omitempty"`
	// KustomizationChanges lists Flux Kustomizations added, removed or changed.
	KustomizationChanges []KustomizationChange `json:"kustomizationChanges"`
	// Timings are the wall times of the review's phases in seconds: "checkout",
	// "render_base", "render_head", "diff" (objects and Kustomizations compared), "rules";
	// the server adds "publish". Review itself fills "diff" and "rules".
	Timings map[string]float64 `json:"timings,omitempty"`
	// Graphs holds each cluster's Kustomization graph at head, for the Markdown diagram.
	Graphs []ClusterGraph `json:"graphs,omitempty"`
}

// ClusterSummary counts one cluster at head (at base when the head lost it).
type ClusterSummary struct {
	Name           string          `json:"name"`
	Root           string          `json:"root"`
	Kustomizations int             `json:"kustomizations"`
	Objects        int             `json:"objects"`
	Partial        []graph.Partial `json:"partial"`
}

// Unreviewed is one Flux object tiergate did not build in full at head (graph.Kustomization
// NotReviewed says when), a ResourceSet or a HelmRelease (graph.ReleaseSkip), with
// Kustomization the one that applies it. File and Line locate the object's manifest; a
// HelmRelease has its chart reference and the host to allow to render it.
type Unreviewed struct {
	Cluster       string   `json:"cluster"`
	Kind          string   `json:"kind"`
	Name          string   `json:"name"` // namespace/name
	Kustomization string   `json:"kustomization"`
	Reason        string   `json:"reason"`
	URLs          []string `json:"urls,omitempty"`
	Chart         string   `json:"chart,omitempty"`
	Host          string   `json:"host,omitempty"`
	// AlsoAllow lists the other hosts the chart's pull needs (graph.ReleaseSkip.AlsoAllow).
	AlsoAllow []string `json:"alsoAllow,omitempty"`
	File      string   `json:"file,omitempty"`
	Line      int      `json:"line,omitempty"`
}

// ObjectChange is one object added, removed or changed; Diff is a unified diff of the
// YAML with Secret values redacted.
type ObjectChange struct {
	Cluster       string         `json:"cluster"`
	Object        graph.ObjectID `json:"object"`
	Kustomization string         `json:"kustomization"`
	// HelmRelease is the HelmRelease ("namespace/name") whose chart renders the object.
	HelmRelease string `json:"helmRelease,omitempty"`
	// Template is the chart template that renders it.
	Template string `json:"template,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Diff     string `json:"diff,omitempty"`
	// Reason says, for an orphaned object, why Helm leaves it.
	Reason string `json:"reason,omitempty"`
}

// KustomizationChange is a Flux Kustomization added, removed or changed (with the unified
// diff of its object).
type KustomizationChange struct {
	Cluster       string `json:"cluster"`
	Kustomization string `json:"kustomization"`
	Change        Change `json:"change"`
	File          string `json:"file,omitempty"`
	Line          int    `json:"line,omitempty"`
	Diff          string `json:"diff,omitempty"`
}

// Change is what happened to a Kustomization between base and head.
type Change string

const (
	Added   Change = "added"
	Removed Change = "removed"
	Changed Change = "changed"
)

// ClusterGraph is the dependsOn graph of one cluster at head.
type ClusterGraph struct {
	Cluster string      `json:"cluster"`
	Nodes   []GraphNode `json:"nodes"`
}

// GraphNode is one Kustomization with its dependsOn edges and parent.
type GraphNode struct {
	Kustomization string   `json:"kustomization"`
	Parent        string   `json:"parent,omitempty"`
	DependsOn     []string `json:"dependsOn,omitempty"`
	Failed        bool     `json:"failed,omitempty"`
	// ParentNode and DependsOnNodes are where Parent and each DependsOn entry stand in the
	// graph's Nodes, plus one (0: not in the graph, or not known): the real identities, which
	// the texts no longer tell apart once names from Secrets are masked
	// ("flux-system/k-<redacted>" twice). Not part of the JSON report.
	ParentNode     int   `json:"-"`
	DependsOnNodes []int `json:"-"`
	// HelmReleases are the HelmReleases the Kustomization applies, with what their charts render.
	HelmReleases []GraphRelease `json:"helmReleases,omitempty"`
}

// GraphRelease is one HelmRelease of a GraphNode: its chart and rendered objects, or why
// it was not rendered (NotRendered) or failed (Error).
type GraphRelease struct {
	HelmRelease string           `json:"helmRelease"` // namespace/name
	Chart       string           `json:"chart,omitempty"`
	Version     string           `json:"version,omitempty"`
	Objects     []graph.ObjectID `json:"objects,omitempty"`
	// Notes say what tiergate assumed of the output (graph.Release.Notes).
	Notes       []string `json:"notes,omitempty"`
	NotRendered string   `json:"notRendered,omitempty"`
	Error       string   `json:"error,omitempty"`
}

// Counts tallies the findings of a given status by severity, a cause that several clusters
// share once (see FirstOfCause).
func (r *Report) Counts(status rules.Status) map[rules.Severity]int {
	out := map[rules.Severity]int{}
	for _, f := range r.Findings {
		if f.Status == status && FirstOfCause(f) {
			out[f.Severity]++
		}
	}
	return out
}

// KustomizationCount is the number of Kustomizations of the report's clusters.
func (r *Report) KustomizationCount() int {
	n := 0
	for _, c := range r.Clusters {
		n += c.Kustomizations
	}
	return n
}

// Fails reports whether a new finding is at or above threshold (None never fails).
func (r *Report) Fails(threshold rules.Severity) bool {
	if threshold == rules.None {
		return false
	}
	for _, f := range r.Findings {
		if f.Status == rules.StatusNew && f.Severity >= threshold {
			return true
		}
	}
	return false
}
