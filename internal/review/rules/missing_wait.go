package rules

import (
	"fmt"

	"github.com/tiergate/tiergate/internal/render"
)

// missingWait reports a Kustomization that is ordered after the tier whose controller
// creates a runtime CRD it uses, when that tier neither waits nor health-checks: without
// wait or healthChecks, Ready means only "applied" (KC, flux-semantics.md §5), so the
// dependent runs before the CRD exists and its dry-run fails until a retry.
func missingWait(c, _ *render.Cluster, env *Env) []Finding {
	v := newView(c)
	var out []Finding
	for _, ref := range c.Order {
		for _, o := range c.Kustomizations[ref].Objects {
			for _, n := range v.objectNeeds(o, env) {
				if n.runtime == nil {
					continue
				}
				for _, p := range n.providers {
					if p == ref || !v.appliesAfter(ref, p) || waitsFor(c.Kustomizations[p], n.runtime.Trigger) {
						continue
					}
					f := objectFinding("missing-wait", Warning, c.Name, o, ref)
					f.key = p.String()
					f.Message = fmt.Sprintf("%s needs %s; %s comes after %s, but %s has neither `wait: true` nor a healthCheck on its %s, so it is Ready before the CRD exists.",
						o.ID, n.what, ref, p, p, n.runtime.Trigger)
					f.Suggestion = fmt.Sprintf("Set `wait: true` on Kustomization %s, or add a healthCheck for its %s.", p, n.runtime.Trigger)
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// waitsFor reports whether ks is Ready only once its trigger object is healthy.
func waitsFor(ks *render.Kustomization, trigger string) bool {
	if ks == nil || ks.Spec.Wait {
		return true
	}
	_, kind := triggerID(trigger)
	for _, hc := range ks.Spec.HealthChecks {
		if hc.Kind == kind {
			return true
		}
	}
	return false
}
