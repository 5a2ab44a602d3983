package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// sharedBuild is a pair of Kustomizations that build the same manifest files (kept, the
// one the change keeps, and added), with the objects both emit from those files, in build order.
type sharedBuild struct {
	kept, added graph.Ref
	objs        []*graph.Object
}

// sharedBuilds collects duplicates that come from one manifest file built by two
// Kustomizations, one entry per pair in the order the pairs are met.
type sharedBuilds struct {
	order []*sharedBuild
	index map[[2]graph.Ref]*sharedBuild
}

func (s *sharedBuilds) add(first, o *graph.Object) {
	key := [2]graph.Ref{first.Owner, o.Owner}
	b := s.index[key]
	if b == nil {
		if s.index == nil {
			s.index = map[[2]graph.Ref]*sharedBuild{}
		}
		b = &sharedBuild{kept: first.Owner, added: o.Owner}
		s.index[key] = b
		s.order = append(s.order, b)
	}
	b.objs = append(b.objs, o)
}

// findings is one duplicate-owner finding per pair: the cause is the path that makes two
// Kustomizations build the same folder (a Kustomization whose spec.path is its parent's, or
// holds the folder of its own manifest), not each object. kustomize-controller applies a
// build whole, the Kustomization's own manifest included (its health check skips itself:
// internal/controller/kustomization_controller.go checkHealth, "Guard against deadlock"),
// and sets its owner labels on every object (ssa ResourceManager.SetOwnerLabels); garbage
// collection deletes only the inventory objects whose labels name the collecting
// Kustomization (deleteObjects, DeleteOptions.Inclusions). So the labels flip with each
// apply, and the deletion or a prune of either removes whatever last carried its labels.
func (s *sharedBuilds) findings(c *graph.Cluster) []Finding {
	var out []Finding
	for _, b := range s.order {
		ks := c.Kustomizations[b.added]
		kept := c.Kustomizations[b.kept]
		if ks == nil || kept == nil {
			continue
		}
		names := make([]string, 0, len(b.objs))
		self := false
		for _, o := range b.objs {
			names = append(names, o.ID.String())
			self = self || (o.ID.Group == "kustomize.toolkit.fluxcd.io" && o.ID.Kind == "Kustomization" && o.ID.Namespace == b.added.Namespace && o.ID.Name == b.added.Name)
		}
		line, _ := keyLine(c, ks.File, ks.Line, "spec", "path")
		own := ""
		if self {
			own = fmt.Sprintf(", its own manifest among them (kustomize-controller applies it and leaves it out of %s's health checks)", b.added)
		}
		out = append(out, Finding{Rule: "duplicate-owner", Severity: Error, Cluster: c.Name, Kustomization: b.added.String(),
			File: ks.File, Line: line, refs: []graph.Ref{b.added, b.kept}, key: "path",
			Message: fmt.Sprintf("Kustomization %s's spec.path %q %s, so %s and %s build the same manifests and both apply these %d objects%s: %s. Each apply sets the kustomize.toolkit.fluxcd.io/name label to its own name, so ownership flips on every reconcile and both inventories list them; when either prunes one, or is deleted (its finalizer garbage-collects its inventory), it deletes those that carry its labels at that moment, the other's included.",
				b.added, ks.Spec.Path, pathRelation(ks.Spec.Path, kept.Spec.Path, b.kept), b.kept, b.added, len(b.objs), own, strings.Join(names, ", ")),
			Suggestion: fmt.Sprintf("Point spec.path of %s (%s:%d) at a folder that %s does not build (one that holds only %s's own manifests), or delete %s. Before deleting it from a cluster where it ran with prune: true, set `prune: false` on it first, or its garbage collection deletes these objects.",
				b.added, ks.File, line, b.kept, b.added, b.added),
		})
	}
	return out
}

// pathRelation says how spec.path p of a Kustomization relates to q, the path of kept.
func pathRelation(p, q string, kept graph.Ref) string {
	cp, cq := cleanDir(p), cleanDir(q)
	switch {
	case cp == cq:
		return fmt.Sprintf("is the folder %s builds", kept)
	case cp == "." || strings.HasPrefix(cq+"/", cp+"/"):
		return fmt.Sprintf("holds %s's folder %s", kept, cq)
	case cq == "." || strings.HasPrefix(cp+"/", cq+"/"):
		return fmt.Sprintf("is inside %s's folder %s", kept, cq)
	}
	return fmt.Sprintf("leads to manifests %s builds", kept)
}

// cleanDir is a spec.path as a clean relative folder ("." for the root).
func cleanDir(p string) string {
	return path.Clean(strings.TrimPrefix(path.Clean("/"+p), "/"))
}
