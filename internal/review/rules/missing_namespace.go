package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm"
)

// missingNamespace reports a Kustomization that applies objects (HelmReleases included) in
// a Namespace that nothing in the cluster creates: no Kustomization emits it, no chart
// renders it, no HelmRelease's install.createNamespace creates it, no bootstrap helmfile
// installs a release there (Env.BootstrapNamespaces), and it is not the Flux installation's
// namespace nor a system one. kustomize-controller dry-runs every object of
// a stage before it applies any (fluxcd/pkg ssa ResourceManager.ApplyAllStaged, called by
// kustomize-controller internal/controller/kustomization_controller.go apply): the dry-run
// of an object there fails with 'namespaces "X" not found', the Kustomization applies
// nothing, on every cold cluster. When another tier or a chart creates it,
// missing-depends-on and runtime-namespace-same-pass say what to order instead. A chart's
// own objects are namespace-for-release's. One finding per Kustomization and namespace,
// its object the missing Namespace, at the first object there. A warning when part of the
// graph is unknown (a partial build, a build error, a chart not rendered): it may create
// the Namespace; none when a Kustomization whose build is unknown here emitted it at the
// other commit (unknownProvider). A Kustomization with remote resources not fetched is
// skipped: they may ship it, and it is listed not reviewed.
func missingNamespace(c, other *graph.Cluster, env *Env) []Finding {
	sev := Error
	if len(render.Partials(c)) > 0 || hasBuildErrors(c) || hasUnrenderedCharts(c) {
		sev = Warning
	}
	v := env.view(c)
	created := releaseNamespacesCreated(c)
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		if len(ks.Remote) > 0 {
			continue
		}
		first := map[string]*graph.Object{}
		count := map[string]int{}
		var order []string
		for _, o := range ks.Objects {
			ns := o.ID.Namespace
			if o.HelmRelease != "" || ns == "" || ns == c.Root.Namespace || systemNamespaces[ns] || created[ns] || env.BootstrapNamespaces[ns] ||
				len(c.Owners[graph.ObjectID{Kind: "Namespace", Name: ns}]) > 0 {
				continue
			}
			if namespaced, known := v.namespaced(o.ID.Group, o.ID.Kind, env.Catalog); known && !namespaced {
				continue // the API server ignores metadata.namespace of a cluster-scoped object
			}
			if first[ns] == nil {
				first[ns] = o
				order = append(order, ns)
			}
			count[ns]++
		}
		for _, ns := range order {
			o := first[ns]
			id := graph.ObjectID{Kind: "Namespace", Name: ns}
			if unknownProvider(c, other, func(p *graph.Object) bool { return p.ID == id }) != "" {
				continue // a failed or unreviewed tier created it at the other commit
			}
			others, verb := "", "is"
			if n := count[ns] - 1; n == 1 {
				others, verb = " and 1 other object", "are"
			} else if n > 1 {
				others, verb = fmt.Sprintf(" and %d other objects", n), "are"
			}
			file, line, at := o.File, o.Line, ""
			if tl, changed := targetNamespaceChanged(c, other, ks); changed && ns == ks.Spec.TargetNamespace {
				// The changed targetNamespace puts them there: the finding is on that line.
				file, line, at = ks.File, tl, fmt.Sprintf(" (%s:%d)", o.File, o.Line)
			}
			out = append(out, Finding{
				Rule: "missing-namespace", Severity: sev, Cluster: c.Name, Kustomization: ref.String(), Object: &id,
				Message: fmt.Sprintf("%s%s%s of Kustomization %s %s in Namespace %s, which nothing in cluster %s creates (no Kustomization or chart renders it, no HelmRelease's install.createNamespace creates it): %s, the dry-run of %s fails with 'namespaces \"%s\" not found' and applies nothing.",
					o.ID, at, others, ref, verb, ns, c.Name, coldCluster, ref, ns),
				Suggestion: fmt.Sprintf("Add a Namespace %s manifest to %s or to a Kustomization it dependsOn; if the cluster has it before Flux runs, ignore this finding in .tiergate.yaml (rule missing-namespace, object {kind: Namespace, name: %s}).",
					ns, ref, ns),
				File: file, Line: line, refs: []graph.Ref{ref},
			})
		}
	}
	return out
}

// releaseNamespacesCreated is the set of release namespaces that a HelmRelease of c
// creates with install.createNamespace, whether or not its chart rendered (Helm
// pkg/action/install.go RunWithContext creates the release namespace first).
func releaseNamespacesCreated(c *graph.Cluster) map[string]bool {
	out := map[string]bool{}
	for _, h := range helmReleases(c) {
		if create, _, _ := unstructured.NestedBool(h.o.Body.Object, "spec", "install", "createNamespace"); create && !h.suspended() {
			out[helm.ReleaseOf(h.o.Body).Namespace] = true
		}
	}
	return out
}

// coldCluster is where missing-namespace's dry-run fails when the change does not delete the
// Namespace; NamespaceDeleted replaces it when the change does.
const coldCluster = "on a cluster without it"

// NamespaceDeleted rewords the new missing-namespace findings of fs whose Namespace the
// base graph applies and the merge deletes: a base owner garbage-collects it (prune, or its
// finalizer; not when the Namespace is annotated prune: disabled), so every running cluster
// loses it and the dry-run fails there too, not only on a cluster bootstrapped from head
// (kustomize-controller prune, fluxcd/pkg ssa ResourceManager.DeleteAll over the stale
// inventory). It runs after the findings have their status, since the rule itself runs on
// both commits.
func NamespaceDeleted(fs []Finding, base, head *graph.Cluster) {
	if base == nil || head == nil {
		return
	}
	for i, f := range fs {
		if f.Rule != "missing-namespace" || f.Status != StatusNew || f.Object == nil {
			continue
		}
		if owner := namespacePruner(*f.Object, base, head); owner != "" {
			fs[i].Message = strings.Replace(f.Message, coldCluster,
				fmt.Sprintf("this merge deletes Namespace %s on every running cluster (Kustomization %s garbage-collects it), and on each of them", f.Object.Name, owner), 1)
			fs[i].Suggestion = fmt.Sprintf("Keep the Namespace %s manifest (in %s or a Kustomization it dependsOn) while objects still use it, or move those objects to their new namespace along with it.",
				f.Object.Name, f.Kustomization)
		}
	}
}

// namespacePruner is the base Kustomization that deletes Namespace id once head is applied;
// "" when none does (a chart's, a ResourceSet's or a protected Namespace is left alone here).
func namespacePruner(id graph.ObjectID, base, head *graph.Cluster) string {
	if len(head.Owners[id]) > 0 {
		return ""
	}
	for _, o := range base.Owners[id] {
		if o.HelmRelease != "" || o.ResourceSet != "" || protected(o) || base.Kustomizations[o.Owner] == nil {
			continue
		}
		if KnownGone(o.Owner, base, head) && garbageCollects(o.Owner, base, head) {
			return o.Owner.String()
		}
	}
	return ""
}
