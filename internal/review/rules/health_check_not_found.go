package rules

import (
	"fmt"
	"regexp"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// healthCheckNotFound reports spec.healthChecks entries that name an object nothing in the
// cluster creates: kustomize-controller waits for them (KustomizationReconciler.checkHealth,
// ssa WaitForSetWithContext) until the timeout with status NotFound, so the Kustomization
// never becomes Ready and every dependent waits forever (kustomize-controller#405).
//
// The entry is read as checkHealth reads it (internal/inventory ReferenceToObjMetadataSet):
// an empty apiVersion is apps/v1, only the group of the apiVersion counts, the namespace is
// taken as written (no default: neither the Kustomization's namespace nor targetNamespace),
// a Kustomization naming itself is skipped, and with `wait: true` the entries are ignored.
// healthCheckExprs name a kind, not an object (cel.NewStatusReader): nothing to find there.
// When part of the cluster is not rendered (unknownProducersIn: a HelmRelease only when
// its release namespace is the entry's) the object may come from it: a notice saying so.
func healthCheckNotFound(c, _ *graph.Cluster, env *Env) []Finding {
	v := env.view(c)
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		if ks.Spec.Wait || ks.Spec.Suspend {
			continue
		}
		for _, hc := range ks.Spec.HealthChecks {
			id, ok := healthCheckID(hc)
			if !ok || (id.Kind == "Kustomization" && id.Namespace == ref.Namespace && id.Name == ref.Name) || v.exists(id) {
				continue
			}
			unknown := capList(unknownProducersIn(c, id.Namespace), 3)
			f := Finding{Rule: "health-check-not-found", Severity: Error, Cluster: c.Name, Kustomization: ref.String(),
				File: ks.File, Line: healthCheckLine(c, ks, hc.Name), refs: []graph.Ref{ref}, key: id.String()}
			hint, fix := v.healthCheckHint(id, env)
			waiting := ""
			if deps := v.dependents(ref); len(deps) > 0 {
				verb := "waits"
				if len(deps) > 1 {
					verb = "wait"
				}
				waiting = fmt.Sprintf(" and %s, which dependsOn it, %s forever", joinAnd(deps), verb)
			}
			if len(unknown) > 0 {
				f.Severity = Notice
				f.Message = fmt.Sprintf("Kustomization %s health-checks %s, which no reviewed Kustomization or chart of cluster %s creates; not checked, since %s may create it.%s",
					ref, id, c.Name, joinAnd(unknown), hint)
				f.Suggestion = fmt.Sprintf("Nothing to do if one of them creates %s; otherwise fix the healthChecks entry at %s:%d.%s", id, f.File, f.Line, fix)
			} else {
				f.Message = fmt.Sprintf("Kustomization %s health-checks %s, which no Kustomization or chart of cluster %s creates: the check ends with status 'NotFound' at the timeout, so %s never becomes Ready%s.%s",
					ref, id, c.Name, ref, waiting, hint)
				f.Suggestion = fmt.Sprintf("Fix the healthChecks entry at %s:%d to name an object the cluster creates, or remove it.%s", f.File, f.Line, fix)
			}
			out = append(out, f)
		}
	}
	return out
}

// healthCheckID is the object a healthChecks entry names, as ReferenceToObjMetadataSet
// reads it; false when its apiVersion does not parse (checkHealth then fails with that error).
func healthCheckID(hc graph.HealthCheck) (graph.ObjectID, bool) {
	apiVersion := hc.APIVersion
	if apiVersion == "" {
		apiVersion = "apps/v1" // v1beta1 compatibility, kept by the controller
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return graph.ObjectID{}, false
	}
	return graph.ObjectID{Group: gv.Group, Kind: hc.Kind, Namespace: hc.Namespace, Name: hc.Name}, true
}

// fluxControllers are the Deployments of a Flux installation in its namespace: they exist
// whether the repository holds gotk-components.yaml or flux-operator installed them.
var fluxControllers = map[string]bool{"source-controller": true, "kustomize-controller": true, "helm-controller": true,
	"notification-controller": true, "image-reflector-controller": true, "image-automation-controller": true, "source-watcher": true}

// exists reports whether the cluster has id: an object of a build or a rendered chart, a
// Kustomization of the graph (the root made by flux-operator included), the root's source,
// or a Flux controller.
func (v *view) exists(id graph.ObjectID) bool {
	if len(v.c.Owners[id]) > 0 {
		return true
	}
	switch {
	case id.Group == "kustomize.toolkit.fluxcd.io" && id.Kind == "Kustomization":
		_, ok := v.c.Kustomizations[graph.Ref{Namespace: id.Namespace, Name: id.Name}]
		return ok
	case id.Group == "source.toolkit.fluxcd.io":
		root := v.c.Kustomizations[v.c.Root]
		return root != nil && root.Spec.SourceRef == graph.SourceRef{Kind: id.Kind, Namespace: id.Namespace, Name: id.Name}
	case id.Group == "apps" && id.Kind == "Deployment":
		return id.Namespace == v.c.Root.Namespace && fluxControllers[id.Name]
	}
	return false
}

// healthCheckHint explains a near miss (an entry without the namespace the object has,
// swapped name and namespace, another API group) and how to fix it; "" for none.
func (v *view) healthCheckHint(id graph.ObjectID, env *Env) (hint, fix string) {
	swapped := id
	swapped.Namespace, swapped.Name = id.Name, id.Namespace
	if id.Namespace != "" && v.exists(swapped) {
		return fmt.Sprintf(" %s exists: the entry has name and namespace swapped.", swapped),
			fmt.Sprintf(" Write `name: %s` and `namespace: %s`.", id.Namespace, id.Name)
	}
	var sameName, otherGroup []graph.ObjectID
	for oid := range v.c.Owners {
		if oid.Name != id.Name || oid.Kind != id.Kind {
			continue
		}
		if oid.Group == id.Group && oid.Namespace != id.Namespace {
			sameName = append(sameName, oid)
		} else if oid.Group != id.Group && oid.Namespace == id.Namespace {
			otherGroup = append(otherGroup, oid)
		}
	}
	switch {
	case id.Namespace == "" && len(sameName) == 1:
		return fmt.Sprintf(" The entry has no namespace, and Flux does not default it (not to the Kustomization's namespace, nor to targetNamespace): it looks for a cluster-scoped %s, while %s exists.", id.Kind, sameName[0]),
			fmt.Sprintf(" Add `namespace: %s` to the entry.", sameName[0].Namespace)
	case id.Namespace == "":
		if ns, known := v.namespaced(id.Group, id.Kind, env.Catalog); known && ns {
			return fmt.Sprintf(" The entry has no namespace, and %s is namespaced: Flux does not default it (not to the Kustomization's namespace, nor to targetNamespace).", kindName(id)),
				" Add the object's `namespace:` to the entry."
		}
	case len(sameName) == 1:
		return fmt.Sprintf(" %s exists in namespace %s.", kindName(sameName[0]), sameName[0].Namespace),
			fmt.Sprintf(" Write `namespace: %s` if that is the object meant.", sameName[0].Namespace)
	case len(otherGroup) == 1:
		return fmt.Sprintf(" %s exists: Flux matches the group of the entry's apiVersion, and %q is not %q.", otherGroup[0], id.Group, otherGroup[0].Group),
			fmt.Sprintf(" Use the apiVersion of group %q.", otherGroup[0].Group)
	}
	return "", ""
}

// dependents lists the Kustomizations with a dependsOn path to ref, in build order.
func (v *view) dependents(ref graph.Ref) []string {
	var out []string
	for _, r := range v.c.Order {
		if r != ref && v.dependsOnPath(r, ref) {
			out = append(out, r.String())
		}
	}
	return out
}

var healthChecksKey = regexp.MustCompile(`^\s*healthChecks:`)

// healthCheckLine locates the entry naming name in ks's healthChecks list.
func healthCheckLine(c *graph.Cluster, ks *graph.Kustomization, name string) int {
	return lineAfter(c, ks.File, ks.Line, healthChecksKey, nameEntry(name))
}
