package rules

import (
	"fmt"
	"slices"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// rootStays reports a root moved with its definition into a new folder while the old
// folder is still there, when the running root does not follow (graph.RunningRoot): the
// root object in the cluster keeps the prior spec.path until a build applies its edited
// manifest, and kustomize-controller builds that prior path of the new revision
// (kustomization_controller.go reconcile). When that build does not hold the root's
// manifest the root keeps the old path for good: it applies what the old folder still
// builds, and its garbage collection deletes what it applied at base that this build
// lacks (kustomization_controller.go prune over the stale inventory), its own Kustomization
// and source among them when flux-system/ moved (the deletion then runs its finalizer,
// which prunes its whole inventory). A build that fails stops the root at its last
// revision. A build holding the root with the new path is the transition and fine; what
// the old folder's build lacks of the root's own objects is then deleted and re-created
// by the new path's first reconcile, a warning. Nil when none of this holds.
func rootStays(base, head *graph.Cluster) []Finding {
	rr := head.Running
	if rr == nil || rr.Missing || rr.Dir != base.RootDir {
		return nil
	}
	file, line := head.RootFile, 0
	if root := head.Kustomizations[head.Root]; root != nil {
		file, line = root.File, pathLine(head, root.File, root.Line)
	}
	lead := fmt.Sprintf("The root of cluster %s (%s, defined at %s) moves from %s to %s. The root object in the cluster keeps path %s until a build applies its edited manifest, "+
		"so at the merge kustomize-controller builds %s of this commit", head.Name, head.Root, head.RootFile, base.RootDir, head.RootDir, rr.Path, base.RootDir)
	keep := fmt.Sprintf("Make %s build the moved root for one merge: a kustomization.yaml in %s of `resources: [%s]` (the running root then applies the new path), and remove %s in a later change; "+
		"or, right after the merge, apply %s by hand (kubectl apply -f %s).", base.RootDir, base.RootDir, relFolder(base.RootDir, head.RootDir), base.RootDir, head.RootFile, head.RootFile)
	f := Finding{Rule: "root-path-changed", Severity: Error, Cluster: head.Name, Kustomization: head.Root.String(), File: file, Line: line, Suggestion: keep}
	lost := lostIDs(base, rr.Objects)
	switch {
	case rr.Err != "":
		f.Message = lead + fmt.Sprintf(", which fails (%s): the root applies nothing from then on, so cluster %s stays at its last applied revision until the new root is applied by hand.", rr.Err, head.Name)
	case !rr.Holds:
		f.Message = lead + fmt.Sprintf(", which no longer holds the root's manifest (now %s): the root keeps path %s for good, applies only what %s still builds, and no change under %s reaches cluster %s", head.RootFile, rr.Path, base.RootDir, head.RootDir, head.Name)
		if len(lost) > 0 {
			f.Message += fmt.Sprintf("; its garbage collection deletes %s it applied at base that this build lacks (%s)", plural(len(lost), "object"), sample(lost))
			if slices.Contains(lost, rootObjectID(base).String()) {
				f.Message += fmt.Sprintf(", the root Kustomization %s itself among them: its finalizer then prunes everything in its inventory", base.Root)
			}
		}
		f.Message += "."
	case rr.NextDir == base.RootDir:
		f.Message = lead + fmt.Sprintf(", which still holds the root's manifest with path %s (%s:%d): the root keeps path %s, and %s is never applied.", rr.Path, rr.File, rr.Line, base.RootDir, head.RootFile)
		f.Suggestion = fmt.Sprintf("Delete %s:%d or set its path to %s in this change, so that the running root applies the new path.", rr.File, rr.Line, head.RootDir)
	case rr.NextDir == head.RootDir && len(lost) > 0:
		var back []string
		for _, id := range lost {
			if headHas(head, id) {
				back = append(back, id)
			}
		}
		if len(back) == 0 {
			return nil
		}
		f.Severity = Warning
		them := "them"
		if len(back) == 1 {
			them = "it"
		}
		f.Message = lead + fmt.Sprintf(", which applies the moved root (%s:%d) but lacks %s that the root applied at base (%s): its garbage collection deletes %s, and the next reconcile, from %s, creates %s again.",
			rr.File, rr.Line, plural(len(back), "object"), sample(back), them, head.RootDir, them)
		f.Suggestion = fmt.Sprintf("Keep %s building the same objects as %s for one merge (a kustomization.yaml of `resources: [%s]`), and remove it in a later change.", base.RootDir, head.RootDir, relFolder(base.RootDir, head.RootDir))
	default:
		return nil
	}
	return []Finding{f}
}

// lostIDs lists, sorted, what base's root Kustomization applied itself that objs (the
// running root's build) lacks.
func lostIDs(base *graph.Cluster, objs []graph.ObjectID) []string {
	root := base.Kustomizations[base.Root]
	if root == nil || !root.Spec.Prune {
		return nil
	}
	var out []string
	for _, o := range root.Objects {
		if !slices.Contains(objs, o.ID) && !slices.Contains(out, o.ID.String()) {
			out = append(out, o.ID.String())
		}
	}
	slices.Sort(out)
	return out
}

// rootObjectID is the identity of c's root Kustomization object.
func rootObjectID(c *graph.Cluster) graph.ObjectID {
	return graph.ObjectID{Group: "kustomize.toolkit.fluxcd.io", Kind: "Kustomization", Namespace: c.Root.Namespace, Name: c.Root.Name}
}

// headHas reports whether c has an object whose String is id.
func headHas(c *graph.Cluster, id string) bool {
	for oid := range c.Owners {
		if oid.String() == id {
			return true
		}
	}
	return false
}

// rootFlips reports a bootstrap root moved to a folder whose build holds another manifest
// of the root (a copy of the old folder, its gotk-sync.yaml still naming the old path):
// kustomize-controller applies the root's own Kustomization object with every build
// (flux-semantics.md §4: the build is applied whole, the Kustomization's own manifest
// included), so each reconcile writes the other path into the root and the next builds
// that one: the path alternates for good, and each reconcile's garbage collection deletes
// what only the other folder builds. Nil for flux-operator's roots (contestedRoot's).
func rootFlips(head *graph.Cluster) []Finding {
	root := head.Kustomizations[head.Root]
	if root == nil || head.Contested != nil || root.File != head.RootFile || documentKind(head, root.File, root.Line) != "Kustomization" {
		return nil
	}
	for _, o := range sortedObjects(head) {
		if !isFluxKustomization(o.ID) || o.ID.Namespace != head.Root.Namespace || o.ID.Name != head.Root.Name || o.File == root.File {
			continue
		}
		p := rootPath(o)
		if p == "-" || p == head.RootDir {
			continue
		}
		return []Finding{{
			Rule: "root-path-changed", Severity: Error, Cluster: head.Name, Kustomization: head.Root.String(), File: o.File, Line: pathLine(head, o.File, o.Line),
			Message: fmt.Sprintf("The root of cluster %s (%s, defined at %s) now applies %s, whose build holds another manifest of the root, %s:%d, with path %s: "+
				"kustomize-controller applies the root's own object with each build, so from the merge on every reconcile writes the other path into the root, "+
				"which then builds %s and sets it back to %s; the root's path flips on every reconcile, and each one's garbage collection deletes what only the other folder builds.",
				head.Name, head.Root, head.RootFile, head.RootDir, o.File, o.Line, p, p, head.RootDir),
			Suggestion: fmt.Sprintf("Keep one manifest of Kustomization %s per cluster: delete %s:%d, or set its path to %s.", head.Root, o.File, o.Line, head.RootDir),
		}}
	}
	return nil
}
