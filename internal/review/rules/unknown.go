package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// unknownProducers lists, as short phrases ("HelmRelease apps/podinfo (chart not
// rendered)"), the parts of c whose objects tiergate does not know in full: a Kustomization
// not reviewed (remote resources, an unmapped source, a limit) or failing to build (the
// cluster keeps what it applied before), a HelmRelease not rendered or failing to render
// (not a suspended one: helm-controller leaves it as installed), a ResourceSet not rendered
// or failing. Any of them may create an object or a CRD that the graph lacks, so rules that
// report something missing from the whole cluster (health-check-not-found, missing-crd)
// say "unknown" instead when the list is not empty.
func unknownProducers(c *graph.Cluster) []string { return unknownProducersIn(c, "") }

// unknownProducersIn is unknownProducers for an object of namespace ns: a HelmRelease whose
// release namespace (targetNamespace, else its own) is another one is left out, since a
// chart's objects live in its release namespace but for the rare chart that names others,
// and one remote chart must not make every health check of the cluster unknown. "" keeps
// every HelmRelease (a cluster-scoped object, a CRD).
func unknownProducersIn(c *graph.Cluster, ns string) []string {
	return unknownProducersFor(c, func(ks *graph.Kustomization, hr graph.ObjectID) bool {
		return ns == "" || releaseNamespaceOf(ks, hr) == ns
	})
}

// unknownProducersFor is unknownProducers with the HelmReleases whose chart is not
// rendered (or fails) kept only where chart(ks, the HelmRelease) says it may produce the
// thing looked for: a chart's objects are in its release namespace (unknownProducersIn),
// its CRDs of the groups it names (missing-crd's crdChartPlausible).
func unknownProducersFor(c *graph.Cluster, chart func(*graph.Kustomization, graph.ObjectID) bool) []string {
	var out []string
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		switch {
		case ks.NotReviewed() != "":
			out = append(out, fmt.Sprintf("Kustomization %s (not reviewed: %s)", ref, ks.NotReviewed()))
		case ks.Err != nil:
			out = append(out, fmt.Sprintf("Kustomization %s (fails to build)", ref))
		}
		for _, s := range ks.HelmReleaseSkipped {
			if !s.Suspended && chart(ks, s.HelmRelease) {
				out = append(out, fmt.Sprintf("HelmRelease %s/%s (chart not rendered)", s.HelmRelease.Namespace, s.HelmRelease.Name))
			}
		}
		for _, e := range ks.HelmReleaseErrors {
			if !chart(ks, e.HelmRelease) {
				continue
			}
			out = append(out, fmt.Sprintf("HelmRelease %s/%s (chart fails to render)", e.HelmRelease.Namespace, e.HelmRelease.Name))
		}
		for _, s := range ks.ResourceSetSkipped {
			out = append(out, fmt.Sprintf("ResourceSet %s/%s (not rendered)", s.ResourceSet.Namespace, s.ResourceSet.Name))
		}
		for _, e := range ks.ResourceSetErrors {
			out = append(out, fmt.Sprintf("ResourceSet %s/%s (fails to render)", e.ResourceSet.Namespace, e.ResourceSet.Name))
		}
	}
	return out
}

// unknownProducersExcept is unknownProducersIn without self, the subject as
// unknownProducers names it ("HelmRelease apps/podinfo"): a part that cannot run before
// the thing it lacks exists cannot be what creates it.
func unknownProducersExcept(c *graph.Cluster, ns, self string) []string {
	var out []string
	for _, u := range unknownProducersIn(c, ns) {
		if !strings.HasPrefix(u, self+" (") {
			out = append(out, u)
		}
	}
	return out
}

// hasUnrenderedCharts reports a HelmRelease whose chart was not rendered (suspended ones
// aside): it may render a Namespace, which is cluster-scoped.
func hasUnrenderedCharts(c *graph.Cluster) bool {
	for _, ks := range c.Kustomizations {
		for _, s := range ks.HelmReleaseSkipped {
			if !s.Suspended {
				return true
			}
		}
	}
	return false
}

func hasBuildErrors(c *graph.Cluster) bool {
	for _, ks := range c.Kustomizations {
		if ks.Err != nil {
			return true
		}
	}
	return false
}

// releaseNamespaceOf is the release namespace of HelmRelease id of ks: its
// spec.targetNamespace, else its own namespace (helm-controller GetReleaseNamespace).
func releaseNamespaceOf(ks *graph.Kustomization, id graph.ObjectID) string {
	for _, o := range ks.Objects {
		if o.ID == id && o.Body != nil {
			if t, _, _ := unstructured.NestedString(o.Body.Object, "spec", "targetNamespace"); t != "" {
				return t
			}
		}
	}
	return id.Namespace
}

// capList keeps the first max phrases of s and counts the rest ("3 more").
func capList(s []string, max int) []string {
	if len(s) > max {
		return append(s[:max:max], fmt.Sprintf("%d more", len(s)-max))
	}
	return s
}

// joinAnd joins phrases as "a, b and c".
func joinAnd(s []string) string { return joinLast(s, " and ") }

// joinOr joins phrases as "a, b or c".
func joinOr(s []string) string { return joinLast(s, " or ") }

// joinLast joins phrases with ", ", the last two with last.
func joinLast(s []string, last string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + last + s[len(s)-1]
}

// unknownProvider names the Kustomization of c whose build is unknown at c (it fails, or is
// not reviewed) and whose build at other, the other commit, emitted an object that match
// accepts: what that Kustomization most likely still provides once it builds. "" when none
// did or other is nil. A rule that would report such an object missing reports nothing:
// the render-error or the not-reviewed entry already says the tier applies nothing, and
// "nothing creates it" would be a cascade of that one fault.
func unknownProvider(c, other *graph.Cluster, match func(*graph.Object) bool) string {
	if other == nil {
		return ""
	}
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		if ks.Err == nil && ks.NotReviewed() == "" {
			continue
		}
		if was := other.Kustomizations[ref]; was != nil {
			for _, o := range was.Objects {
				if match(o) {
					return ref.String()
				}
			}
		}
	}
	return ""
}
