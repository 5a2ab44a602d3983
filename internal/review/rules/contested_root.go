package rules

import (
	"fmt"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// contestedRoot reports the Kustomization that flux-operator creates from a FluxInstance's
// spec.sync when a build also emits it with another path or source (Cluster.Contested):
// the operator's reconcile (FluxInstance controller, which applies its sync Kustomization
// with server-side apply) and kustomize-controller's apply of the parent each write their
// own spec, so the path flips on every reconcile and each flip prunes what the other path
// applied. It is a duplicate-owner of that one object.
func contestedRoot(c *graph.Cluster) []Finding {
	ks := c.Contested
	if ks == nil {
		return nil
	}
	root := c.Kustomizations[c.Root]
	id := graph.ObjectID{Group: "kustomize.toolkit.fluxcd.io", Kind: "Kustomization", Namespace: ks.Ref.Namespace, Name: ks.Ref.Name}
	parent := ""
	if ks.Parent != nil {
		parent = ks.Parent.String()
	}
	return []Finding{{
		Rule: "duplicate-owner", Severity: Error, Cluster: c.Name, Object: &id, Kustomization: parent, File: ks.File, Line: ks.Line,
		Message: fmt.Sprintf("Kustomization %s is created by flux-operator from the FluxInstance sync at %s:%d (path %s, source %s) and also emitted by %s with path %s (source %s): "+
			"flux-operator and kustomize-controller overwrite each other's spec on every reconcile, and each flip prunes what the other path applies.",
			ks.Ref, root.File, root.Line, c.RootDir, root.Spec.SourceRef, parent, ks.Spec.Path, ks.Spec.SourceRef),
		Suggestion: fmt.Sprintf("Delete %s:%d (the FluxInstance owns Kustomization %s), or give it another name if it is meant to be a separate Kustomization.", ks.File, ks.Line, ks.Ref),
	}}
}
