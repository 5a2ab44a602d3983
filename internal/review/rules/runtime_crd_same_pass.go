package rules

import (
	"fmt"

	"github.com/tiergate/tiergate/internal/render"
)

// runtimeCRDSamePass reports a custom resource whose CRD a controller creates at runtime
// when it sits in the same Kustomization as the object that makes the controller create
// it. kustomize-controller dry-runs every object of a stage before applying any
// (fluxcd/pkg ssa ApplyAllStaged, flux-semantics.md §3): the unknown kind fails the dry-run,
// the trigger is never applied, the CRD never appears. A permanent deadlock.
func runtimeCRDSamePass(c, _ *render.Cluster, env *Env) []Finding {
	v := newView(c)
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		for _, o := range ks.Objects {
			rk, ok := runtimeKind(v, env, o)
			if !ok {
				continue
			}
			trigger := findKind(ks, rk.Trigger)
			if trigger == nil {
				continue
			}
			f := objectFinding("runtime-crd-same-pass", Error, c.Name, o, ref)
			f.Message = fmt.Sprintf("%s's CRD is created at runtime once %s reconciles, but both are in %s: Flux's dry-run rejects the unknown kind %s, nothing in the stage is applied, and the CRD never appears.",
				o.ID, trigger.ID, ref, o.ID.Kind)
			f.Suggestion = fmt.Sprintf("Move %s to a new Kustomization with `wait: true` and:\n  dependsOn:\n    - name: %s", o.ID, ref.Name)
			out = append(out, f)
		}
	}
	return out
}

// runtimeKind returns the catalog entry of o's kind when no build in the graph ships its CRD.
func runtimeKind(v *view, env *Env, o *render.Object) (RuntimeKind, bool) {
	gk := o.ID.Group + "/" + o.ID.Kind
	if _, shipped := v.crdOwners[gk]; shipped {
		return RuntimeKind{}, false
	}
	return env.Catalog.Lookup(gk)
}

// findKind returns ks's first object of "group/Kind".
func findKind(ks *render.Kustomization, gk string) *render.Object {
	group, kind := triggerID(gk)
	for _, o := range ks.Objects {
		if o.ID.Group == group && o.ID.Kind == kind {
			return o
		}
	}
	return nil
}
