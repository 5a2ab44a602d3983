package rules

import (
	"fmt"
	"strings"

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

// syncCopies reports the objects flux-operator creates from the FluxInstance's spec.sync
// (its source, GitRepository, OCIRepository or Bucket, and its Kustomization, both named
// after sync.name or the namespace: internal/builder/templates.go syncTmpl) when a build of
// the cluster also emits them, whatever spec it gives them (a spec that differs in path or
// source is contestedRoot's). flux-operator applies them with server-side apply under its
// own field manager, strips kustomize-controller's kustomize.toolkit.fluxcd.io/name and
// namespace labels and takes the fields over from the flux CLI's manager
// (internal/controller/fluxinstance_controller.go apply: ApplyCleanupOptions); the
// Kustomization whose build holds them applies them back with its labels and its own spec
// (a bootstrap gotk-sync.yaml left in the synced folder, which flux-operator's migration
// guide says to delete). Two managers of one object: a duplicate-owner.
func syncCopies(c *graph.Cluster) []Finding {
	root := c.Kustomizations[c.Root]
	if root == nil || c.Contested != nil || root.Parent != nil || root.File != c.RootFile {
		return nil
	}
	kind := documentKind(c, root.File, root.Line)
	if kind != "FluxInstance" && kind != "HelmRelease" && kind != "ResourceSet" {
		return nil
	}
	src := root.Spec.SourceRef
	var out []Finding
	for _, o := range sortedObjects(c) {
		switch {
		case isFluxKustomization(o.ID) && o.ID.Namespace == c.Root.Namespace && o.ID.Name == c.Root.Name:
		case o.ID.Group == "source.toolkit.fluxcd.io" && o.ID.Kind == src.Kind && o.ID.Namespace == src.Namespace && o.ID.Name == src.Name:
		default:
			continue
		}
		if o.HelmRelease != "" || o.ResourceSet != "" {
			continue
		}
		f := objectFinding("duplicate-owner", Error, c.Name, o, o.Owner)
		f.Message = fmt.Sprintf("%s is created by flux-operator from the sync of %s %s:%d and also applied by %s from %s:%d: "+
			"flux-operator and kustomize-controller each apply their own spec with server-side apply and take the object from the other on every reconcile "+
			"(flux-operator strips the kustomize.toolkit.fluxcd.io labels, kustomize-controller sets them again), and %s's garbage collection may delete it.",
			o.ID, kind, root.File, root.Line, o.Owner, o.File, o.Line, o.Owner)
		f.Suggestion = fmt.Sprintf("Delete %s:%d: the %s owns %s (flux-operator's migration guide removes the bootstrap flux-system folder once the FluxInstance syncs).", o.File, o.Line, kind, o.ID)
		out = append(out, f)
	}
	return out
}

// documentKind is the kind written on line (the 1-based `kind:` line of a document) of
// file; "" when that line is not one.
func documentKind(c *graph.Cluster, file string, line int) string {
	lines, ok := c.Lines(file)
	if !ok || line < 1 || line > len(lines) {
		return ""
	}
	k, ok := strings.CutPrefix(strings.TrimSpace(lines[line-1]), "kind:")
	if !ok {
		return ""
	}
	k, _, _ = strings.Cut(k, "#")
	return strings.Trim(strings.TrimSpace(k), `'"`)
}
