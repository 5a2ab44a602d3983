package rules

import (
	"cmp"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// rootPathChanged reports a cluster whose root (its FluxInstance's spec.sync.path, or its
// bootstrap Kustomization's spec.path) now applies a folder that another root is defined
// in, while the cluster's own definition stays outside it: the cluster keeps its identity
// (graph.MatchClusters) and reconciles that folder's graph from then on. flux-operator
// writes sync.path into the root Kustomization it applies (FluxInstance controller,
// "Flux Cluster Sync Configuration"), and kustomize-controller garbage-collects whatever the
// root's inventory held that the new path does not build (fluxcd/pkg ssa
// ResourceManager.DeleteAll over the stale inventory, kustomization_controller.go prune).
// Error: flux-operator's FluxInstance controller deletes what it installed when its
// FluxInstance is deleted (internal/controller/fluxinstance_uninstaller.go uninstall), and the
// merge overwrites the cluster's flux-system objects with the other cluster's.
// A root moving into a new folder of its own (a renamed cluster folder) is rootFolderGone's.
func rootPathChanged(base, head *graph.Cluster, _ *Env) []Finding {
	if base == nil || head == nil || base.RootDir == head.RootDir {
		return nil
	}
	if f := rootFlips(head); f != nil {
		return f
	}
	if inFolder(head.RootFile, head.RootDir) {
		if f := rootStays(base, head); f != nil {
			return f
		}
		return rootFolderGone(base, head)
	}
	if !inFolder(base.RootFile, base.RootDir) {
		return nil
	}
	// A folder new in this commit is no other cluster's, whatever root manifest it holds:
	// a copy of the cluster's own folder (its root with the new path) is the transition.
	other := otherRoot(head)
	if other == nil || base.Source == nil || base.Source.State(cmp.Or(head.RootDir, ".")) != "dir" {
		return nil
	}
	root := head.Kustomizations[head.Root]
	file, line := head.RootFile, 0
	if root != nil {
		file, line = root.File, pathLine(head, root.File, root.Line)
	}
	pruned := prunedIDs(base, head)
	msg := fmt.Sprintf("The root of cluster %s (%s, defined at %s) now applies %s instead of %s; that folder holds another cluster's root (%s %s at %s:%d). "+
		"Cluster %s keeps its identity and from the merge on reconciles that folder's graph (its Kustomizations, variables and flux-system objects, shown here as %s's head)",
		head.Name, head.Root, head.RootFile, head.RootDir, base.RootDir, other.ID.Kind, other.ID.Namespace+"/"+other.ID.Name, other.File, other.Line, head.Name, head.Name)
	if len(pruned) > 0 {
		msg += fmt.Sprintf(", and the root's garbage collection deletes %s it applied from %s that the new folder does not (%s)", plural(len(pruned), "object"), base.RootDir, sample(pruned))
		if def := definition(base, head); def != "" {
			msg += ", the " + def + " that defines the cluster among them (deleting it makes flux-operator uninstall the Flux controllers it installed)"
		}
	}
	return []Finding{{
		Rule: "root-path-changed", Severity: Error, Cluster: head.Name, Kustomization: head.Root.String(), File: file, Line: line,
		Message:    msg + ".",
		Suggestion: fmt.Sprintf("If %s is a typo, set the path back to %s. If cluster %s is meant to run %s's configuration, review the removed and changed objects below: they are what the merge does to %s.", head.RootDir, base.RootDir, head.Name, head.RootDir, head.Name),
	}}
}

// rootFolderGone reports a root whose path moves with its definition into a folder of its
// own (a renamed cluster folder) while this commit has no folder at the old path. The root
// object in the cluster keeps the old path until its edited manifest is applied, and only a
// build of the new folder applies it: kustomize-controller stops before applying anything
// with "kustomization path not found" (kustomization_controller.go reconcile, the os.Stat of
// SecureJoin(tmpDir, spec.path), ArtifactFailedReason), and flux-operator's root likewise
// keeps the sync.path of the FluxInstance in the cluster. Nothing while the old folder is
// there (its build still applies the edited root).
func rootFolderGone(base, head *graph.Cluster) []Finding {
	old := fsys.CleanPath(base.RootDir)
	if old == "" || head.Source == nil || head.Source.State(old) == "dir" {
		return nil
	}
	oldPath := old
	if ks := base.Kustomizations[base.Root]; ks != nil && ks.Spec.Path != "" {
		oldPath = ks.Spec.Path
	}
	file, line := head.RootFile, 0
	if root := head.Kustomizations[head.Root]; root != nil {
		file, line = root.File, pathLine(head, root.File, root.Line)
	}
	msg := fmt.Sprintf("The root of cluster %s (%s, defined at %s) moves from %s to %s, and this commit has no folder %s. "+
		"The root object in the cluster keeps the old path until its edited manifest is applied, and only a build of %s applies it: "+
		"from the merge on kustomize-controller fails the root with 'kustomization path not found: %s' before applying anything, "+
		"so cluster %s stays at its last applied revision, and no later change reaches it, until the new root is applied by hand.",
		head.Name, head.Root, head.RootFile, base.RootDir, head.RootDir, base.RootDir, head.RootDir, oldPath, head.Name)
	keep := fmt.Sprintf("Keep %s for one merge with a kustomization.yaml of `resources: [%s]`", base.RootDir, relFolder(base.RootDir, head.RootDir))
	if head.Source.State(path.Join(fsys.CleanPath(head.RootDir), "kustomization.yaml")) != "file" {
		keep += fmt.Sprintf(" (%s then needs a kustomization.yaml listing its files)", head.RootDir)
	}
	keep += fmt.Sprintf(": the running root builds the same objects and applies the moved root; remove %s in a later change. Or, right after the merge, apply %s by hand (kubectl apply -f %s)", base.RootDir, head.RootFile, head.RootFile)
	if !definesInstance(head) {
		keep += fmt.Sprintf(" or run flux bootstrap again with --path=%s", head.RootDir)
	}
	return []Finding{{
		Rule: "root-path-changed", Severity: Error, Cluster: head.Name, Kustomization: head.Root.String(), File: file, Line: line,
		Message: msg, Suggestion: keep + ".",
	}}
}

// relFolder is folder to as a kustomize resource of folder from: "../production".
func relFolder(from, to string) string {
	rel, err := filepath.Rel(filepath.FromSlash(fsys.CleanPath(from)), filepath.FromSlash(fsys.CleanPath(to)))
	if err != nil {
		return to
	}
	return filepath.ToSlash(rel)
}

// definesInstance reports whether c's root file holds a FluxInstance (flux-operator's root).
func definesInstance(c *graph.Cluster) bool {
	for id, objs := range c.Owners {
		if id.Kind == "FluxInstance" && len(objs) > 0 && objs[0].File == c.RootFile {
			return true
		}
	}
	return false
}

// pathLine is the line of the root's path in the manifest whose kind: line is file:from:
// a FluxInstance's spec.sync.path or a Kustomization's spec.path; from when neither is there.
func pathLine(c *graph.Cluster, file string, from int) int {
	for _, keys := range [][]string{{"spec", "sync", "path"}, {"spec", "path"}} {
		if l, n := keyLine(c, file, from, keys...); n == len(keys) {
			return l
		}
	}
	return from
}

// plural is "1 object", "2 objects".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// definition names the object of base's root file that head no longer has (the
// FluxInstance, when the old folder held it); "" when there is none.
func definition(base, head *graph.Cluster) string {
	for id, objs := range base.Owners {
		if _, ok := head.Owners[id]; !ok && len(objs) > 0 && objs[0].File == base.RootFile && id.Kind == "FluxInstance" {
			return "FluxInstance " + id.Namespace + "/" + id.Name
		}
	}
	return ""
}

// inFolder reports whether file lies in folder dir ("" is the repository's root).
func inFolder(file, dir string) bool {
	dir = fsys.CleanPath(dir)
	return dir == "" || strings.HasPrefix(file, dir+"/")
}

// otherRoot is the object of c that roots c's folder itself: a Flux Kustomization defined in
// c.RootDir whose path is c.RootDir (a bootstrap gotk-sync.yaml), or a FluxInstance there
// whose sync.path is; nil when there is none.
func otherRoot(c *graph.Cluster) *graph.Object {
	var found *graph.Object
	for _, objs := range c.Owners {
		for _, o := range objs {
			if o.File == c.RootFile || !inFolder(o.File, c.RootDir) || rootPath(o) != c.RootDir {
				continue
			}
			if found == nil || o.File < found.File || (o.File == found.File && o.Line < found.Line) {
				found = o
			}
		}
	}
	return found
}

// rootPath is the folder o applies when o may root a cluster: a Flux Kustomization's
// spec.path, a FluxInstance's spec.sync.path; "-" for any other object.
func rootPath(o *graph.Object) string {
	var p []string
	switch {
	case o.Body == nil:
		return "-"
	case isFluxKustomization(o.ID):
		p = []string{"spec", "path"}
	case o.ID.Group == "fluxcd.controlplane.io" && o.ID.Kind == "FluxInstance":
		p = []string{"spec", "sync", "path"}
	default:
		return "-"
	}
	v, _ := graph.ValueAt(o.Body.Object, p)
	s, ok := v.(string)
	if !ok {
		return "-"
	}
	return fsys.CleanPath(s)
}

// prunedIDs lists, sorted, the objects of base that head does not have and that an owner
// with prune: true applied at base (its garbage collection deletes them).
func prunedIDs(base, head *graph.Cluster) []string {
	var out []string
	for id, objs := range base.Owners {
		if _, ok := head.Owners[id]; ok || len(objs) == 0 {
			continue
		}
		if ks := base.Kustomizations[objs[0].Owner]; ks != nil && ks.Spec.Prune {
			out = append(out, id.String())
		}
	}
	slices.Sort(out)
	return out
}

// sample names the first three of ids, and how many more there are.
func sample(ids []string) string {
	if len(ids) <= 3 {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:3], ", "), len(ids)-3)
}
