package render

import (
	"fmt"
	"strings"

	"github.com/tiergate/tiergate/internal/render/artifact"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// Partials lists the Kustomizations of c that could not be rendered completely.
func Partials(c *graph.Cluster) []graph.Partial {
	var out []graph.Partial
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		switch {
		case ks.Skipped != "":
			reason := ks.Skipped
			// flux bootstrap and flux-operator create the root's own source.
			if root := c.Kustomizations[c.Root]; !hasSource(c, ks.Spec.SourceRef) && ref != c.Root && (root == nil || ks.Spec.SourceRef != root.Spec.SourceRef) {
				reason += "; no such source is rendered in the cluster either, so Flux reports it not found unless it is created out of band"
			}
			out = append(out, graph.Partial{Kustomization: ref.String(), Reason: reason})
		case ks.PriorSpec:
			out = append(out, graph.Partial{Kustomization: ref.String(), Reason: fmt.Sprintf("%s fails, so Flux does not apply what it emits: "+
				"this Kustomization keeps its spec from the base commit, and is reviewed with it and the head files", ks.Parent)})
		case ks.NeedsRemote != "":
			out = append(out, graph.Partial{Kustomization: ref.String(), Reason: ks.NotReviewed(), URLs: ks.Remote})
		case len(ks.Remote) > 0:
			out = append(out, graph.Partial{Kustomization: ref.String(), Reason: "remote resources not fetched", URLs: ks.Remote})
		case len(ks.Unresolved) > 0:
			out = append(out, graph.Partial{Kustomization: ref.String(), Reason: "substituteFrom " + strings.Join(ks.Unresolved, ", ") +
				" not in the repository (created at runtime or out of band): its variables are not checked"})
		}
		for _, skip := range ks.ResourceSetSkipped {
			out = append(out, graph.Partial{Kustomization: ref.String(), Reason: skip.Reason})
		}
		for _, skip := range ks.HelmReleaseSkipped {
			out = append(out, graph.Partial{Kustomization: ref.String(), Reason: skip.Reason})
		}
	}
	return out
}

// hasSource reports whether the graph emits the Flux source s, or for an ExternalArtifact
// an ArtifactGenerator that produces it.
func hasSource(c *graph.Cluster, s graph.SourceRef) bool {
	if s.Kind == artifact.ExternalKind && artifact.Generates(c, s) {
		return true
	}
	return len(c.Owners[graph.ObjectID{Group: "source.toolkit.fluxcd.io", Kind: s.Kind, Namespace: s.Namespace, Name: s.Name}]) > 0
}
