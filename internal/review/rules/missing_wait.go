package rules

import (
	"fmt"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// missingWait reports a Kustomization that is ordered after the tier whose controller
// creates a runtime CRD it uses, when that tier neither waits nor health-checks: without
// wait or healthChecks, Ready means only "applied" (KC, flux-semantics.md §5), so the
// dependent runs before the CRD exists and its dry-run fails until a retry.
func missingWait(c, _ *graph.Cluster, env *Env) []Finding {
	v := env.view(c)
	var out []Finding
	for _, ref := range c.Order {
		for _, o := range c.Kustomizations[ref].Objects {
			for _, n := range v.objectNeeds(o, env) {
				if n.runtime == nil {
					continue
				}
				for _, p := range n.providers {
					f := objectFinding("missing-wait", Warning, c.Name, o, ref)
					f.refs = []graph.Ref{p}
					switch {
					case p == ref || !v.appliesAfter(ref, p):
						continue
					case v.ancestor(p, ref) && !v.dependsOnPath(ref, p):
						// A parent creates its children while it applies, before any health check.
						f.Message = fmt.Sprintf("%s needs %s; %s is created by its ancestor %s, which holds the %s, so it reconciles before the CRD exists and fails its dry-run until a retry.",
							o.ID, n.what, ref, p, n.runtime.TriggerName())
						f.Suggestion = fmt.Sprintf("Move the %s out of %s into a Kustomization with `wait: true`, and add it to the dependsOn of %s.", n.runtime.Trigger, p, ref)
					case waitsFor(c.Kustomizations[p], n.runtime.Trigger):
						continue
					default:
						f.Message = fmt.Sprintf("%s needs %s; %s comes after %s, but %s has neither `wait: true` nor a healthCheck on its %s, so it is Ready before the CRD exists.",
							o.ID, n.what, ref, p, p, n.runtime.TriggerName())
						f.Suggestion = fmt.Sprintf("Set `wait: true` on Kustomization %s, or add a healthCheck for its %s.", p, n.runtime.TriggerName())
					}
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// waitsFor reports whether ks is Ready only once its trigger object is healthy.
func waitsFor(ks *graph.Kustomization, trigger string) bool {
	if ks == nil || ks.Spec.Wait {
		return true
	}
	group, kind := triggerID(trigger)
	for _, hc := range ks.Spec.HealthChecks {
		if hc.Kind == kind && strings.SplitN(hc.APIVersion, "/", 2)[0] == group {
			return true
		}
	}
	return false
}
