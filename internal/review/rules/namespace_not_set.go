package rules

import (
	"fmt"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// namespaceNotSet reports namespaced objects that render without a namespace in a
// Kustomization without targetNamespace: the server-side dry-run fails with 'namespace
// not specified' and the whole stage stops (fluxcd/pkg ssa DryRunErr, flux-semantics.md §3).
// A custom kind whose CRD no build ships is unknown in a Kustomization with remote resources
// not fetched: the remote CRD, not the catalog, says its scope.
func namespaceNotSet(c, _ *graph.Cluster, env *Env) []Finding {
	v := env.view(c)
	var out []Finding
	each(c, func(ks *graph.Kustomization, o *graph.Object) {
		// targetNamespace reaches the ResourceSet, not what flux-operator renders from it.
		if o.ID.Namespace != "" || (ks.Spec.TargetNamespace != "" && o.ResourceSet == "") {
			return
		}
		if ns, known := v.namespaced(o.ID.Group, o.ID.Kind, env.Catalog); !known || !ns {
			return
		}
		if _, shipped := v.crdOwners[o.ID.Group+"/"+o.ID.Kind]; len(ks.Remote) > 0 && !shipped && !builtin(o.ID.Group, o.ID.Kind) {
			return
		}
		f := objectFinding("namespace-not-set", Error, c.Name, o, ks.Ref)
		f.Message = fmt.Sprintf("%s is namespaced but renders without a namespace, and %s sets no targetNamespace: the dry-run fails with 'namespace not specified' and %s applies nothing of that stage.",
			o.ID, ks.Ref, ks.Ref)
		f.Suggestion = fmt.Sprintf("Set metadata.namespace on %s in %s:%d, a `namespace:` in its kustomization.yaml, or spec.targetNamespace on %s.", o.ID.Name, o.File, o.Line, ks.Ref)
		if o.ResourceSet != "" {
			f.Message = fmt.Sprintf("%s is namespaced but ResourceSet %s renders it without a namespace, which flux-operator does not default: the dry-run fails with 'namespace not specified' and the ResourceSet applies nothing.", o.ID, o.ResourceSet)
			f.Suggestion = fmt.Sprintf("Set metadata.namespace on %s in the template of ResourceSet %s (%s:%d).", o.ID.Name, o.ResourceSet, o.File, o.Line)
		}
		out = append(out, f)
	})
	return out
}
