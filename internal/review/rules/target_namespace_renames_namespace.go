package rules

import (
	"fmt"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// targetNamespaceRenamesNamespace reports a Namespace object that a Kustomization's
// spec.targetNamespace renames. kustomize-controller builds with the target as the
// kustomization.yaml `namespace:` (fluxcd/pkg/kustomize Generator), and kustomize's namespace
// transformer sets metadata.name of every v1 Namespace to it (sigs.k8s.io/kustomize/api
// filters/namespace Filter.run: the metadata/name field spec of kind Namespace, kept by
// removeUnneededMetaFieldSpecs for apiVersion v1). So the Namespace the file shows is never
// created, and the Kustomization owns, and prunes with itself, the target Namespace —
// flux-system in flux2#3949 and #4570. The source name is read from the object's document.
//
// When the target differs in the other commit, the change of spec.targetNamespace is what
// renames the Namespace: the finding is on that line (the PR's change; the Namespace's own
// file may be untouched, and the message names it).
//
// A Namespace written `${TENANT}` whose postBuild substitution gives the target is not
// renamed in effect (graph.Object NamedAsTarget): kustomize-controller builds first (the
// transformer names it the target) and substitutes after, so Flux applies the name the
// substitution would have written. One that substitutes to another name still is.
func targetNamespaceRenamesNamespace(c, other *graph.Cluster, _ *Env) []Finding {
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		target := ks.Spec.TargetNamespace
		if target == "" {
			continue
		}
		for _, o := range ks.Objects {
			if o.ID.Group != "" || o.ID.Kind != "Namespace" || o.ID.Name != target || o.HelmRelease != "" || o.ResourceSet != "" {
				continue
			}
			_, orig := docAt(c, o.File, o.Line)
			if orig == "" || orig == target || o.NamedAsTarget {
				continue
			}
			f := objectFinding("target-namespace-renames-namespace", Error, c.Name, o, ref)
			f.key = orig
			f.Message = fmt.Sprintf("Namespace %s (%s:%d) is renamed to %s by spec.targetNamespace of %s: kustomize's namespace transformer sets the name of every Namespace to the target namespace, so Namespace %s is never created and %s applies, owns and may prune Namespace %s instead.",
				orig, o.File, o.Line, target, ref, orig, ref, target)
			if target == c.Root.Namespace {
				f.Message += fmt.Sprintf(" %s is the namespace of Flux itself: deleting %s, or a prune of its inventory, deletes it with everything in it.", target, ref)
			}
			for _, other := range c.Owners[o.ID] {
				if other.Owner != ref {
					f.Message += fmt.Sprintf(" %s also applies Namespace %s (%s:%d).", other.Owner, target, other.File, other.Line)
					break
				}
			}
			if line, changed := targetNamespaceChanged(c, other, ks); changed {
				f.File, f.Line = ks.File, line
			}
			f.Suggestion = fmt.Sprintf("Move Namespace %s out of %s to a Kustomization without targetNamespace, or remove it from %s:%d if Namespace %s is the one meant.",
				orig, ref, o.File, o.Line, target)
			out = append(out, f)
		}
	}
	return out
}

// docAt returns the kind and metadata.name of the document of file whose `kind:` key (the
// last, if repeated) is on line; "" when there is none.
func docAt(c *graph.Cluster, file string, line int) (kind, name string) {
	m := docsOf(c, file).byLastKind[line]
	if m == nil {
		return "", ""
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		switch m.Content[i].Value {
		case "kind":
			kind = m.Content[i+1].Value
		case "metadata":
			md := m.Content[i+1]
			for j := 0; j+1 < len(md.Content); j += 2 {
				if md.Content[j].Value == "name" {
					name = md.Content[j+1].Value
				}
			}
		}
	}
	return kind, name
}

// targetNamespaceChanged reports whether ks's spec.targetNamespace in c differs from the
// other commit's (ks present in both), and the line of c's `targetNamespace:` (its `spec:`
// line when the change removes it): the line of the PR's change, where a finding it causes
// belongs when the objects' own files may be untouched.
func targetNamespaceChanged(c, other *graph.Cluster, ks *graph.Kustomization) (int, bool) {
	if other == nil {
		return 0, false
	}
	was := other.Kustomizations[ks.Ref]
	if was == nil || was.Spec.TargetNamespace == ks.Spec.TargetNamespace {
		return 0, false
	}
	line, _ := keyLine(c, ks.File, ks.Line, "spec", "targetNamespace")
	return line, true
}
