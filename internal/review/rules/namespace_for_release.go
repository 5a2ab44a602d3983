package rules

import (
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm"
)

// systemNamespaces exist in every cluster before Flux runs.
var systemNamespaces = map[string]bool{"default": true, "kube-system": true, "kube-public": true, "kube-node-lease": true}

// namespaceForRelease reports a HelmRelease whose objects go to a Namespace nothing in the
// cluster's graph creates: its release namespace (spec.targetNamespace) without
// install.createNamespace, or a namespace the chart's objects name explicitly, which
// createNamespace never creates (it creates the release namespace only: Helm
// pkg/action/install.go RunWithContext). Helm's install then fails with 'namespaces "X" not
// found' on the first object there (helm-controller internal/reconcile/install.go), and so
// does every retry. The finding points at spec.targetNamespace, or at the values line that
// sends the chart's objects to the namespace (chartNamespaceLine). A warning when part of the graph is unknown (a partial build, a
// chart not rendered): it may create the Namespace.
func namespaceForRelease(c, _ *graph.Cluster, _ *Env) []Finding {
	sev := Error
	if len(render.Partials(c)) > 0 || hasBuildErrors(c) || hasUnrenderedCharts(c) {
		sev = Warning
	}
	created := func(ns string) bool {
		return ns == "" || ns == c.Root.Namespace || systemNamespaces[ns] || len(c.Owners[graph.ObjectID{Kind: "Namespace", Name: ns}]) > 0
	}
	chartNamespaces := releaseObjectNamespaces(c)
	var out []Finding
	for _, h := range helmReleases(c) {
		if h.suspended() {
			continue
		}
		rel := helm.ReleaseOf(h.o.Body)
		create, _, _ := unstructured.NestedBool(h.o.Body.Object, "spec", "install", "createNamespace")
		id := h.o.ID
		if rel.Namespace != h.ref.Namespace && !create && !created(rel.Namespace) {
			out = append(out, Finding{
				Rule: "namespace-for-release", Severity: sev, Cluster: c.Name, Kustomization: h.ks.String(), Object: &id,
				Message: fmt.Sprintf("HelmRelease %s installs into targetNamespace %s, which nothing in the cluster creates and install.createNamespace is not set: Helm's install fails with 'namespaces \"%s\" not found'.",
					h.ref, rel.Namespace, rel.Namespace),
				Suggestion: fmt.Sprintf("Set `install: {createNamespace: true}` on HelmRelease %s (%s:%d), or add a Namespace %s manifest to a Kustomization it dependsOn.",
					h.ref, h.o.File, h.o.Line, rel.Namespace),
				File: h.o.File, Line: firstKeyLine(c, h.o, []string{"spec", "targetNamespace"}), key: "namespace " + rel.Namespace,
			})
		}
		for _, ns := range chartNamespaces[h.ref.String()] {
			if ns == rel.Namespace || created(ns) {
				continue
			}
			out = append(out, Finding{
				Rule: "namespace-for-release", Severity: sev, Cluster: c.Name, Kustomization: h.ks.String(), Object: &id,
				Message: fmt.Sprintf("HelmRelease %s's chart renders objects in namespace %s, which nothing in the cluster creates (install.createNamespace creates only the release namespace %s): Helm's install fails with 'namespaces \"%s\" not found'.",
					h.ref, ns, rel.Namespace, ns),
				Suggestion: fmt.Sprintf("Add a Namespace %s manifest to a Kustomization that HelmRelease %s's Kustomization dependsOn, or set the chart's values so that its objects go to the release namespace.", ns, h.ref),
				File:       h.o.File, Line: chartNamespaceLine(c, h.o, ns), key: "namespace " + ns,
			})
		}
	}
	return out
}

// chartNamespaceLine locates why o's chart renders objects in namespace ns: the line of
// spec.values that sets it, else spec.targetNamespace (the release namespace the objects
// were expected in), else metadata.namespace, else o's own line.
func chartNamespaceLine(c *graph.Cluster, o *graph.Object, ns string) int {
	if l, ok := valueLine(c, o.File, o.Line, ns, "spec", "values"); ok {
		return l
	}
	return firstKeyLine(c, o, []string{"spec", "targetNamespace"}, []string{"metadata", "namespace"})
}

// firstKeyLine is the line of the first of paths that o's manifest holds, else o's line.
func firstKeyLine(c *graph.Cluster, o *graph.Object, paths ...[]string) int {
	for _, p := range paths {
		if l, n := keyLine(c, o.File, o.Line, p...); n == len(p) {
			return l
		}
	}
	return o.Line
}

// releaseObjectNamespaces maps each rendered HelmRelease ("namespace/name") to the
// namespaces its chart's objects are in, sorted.
func releaseObjectNamespaces(c *graph.Cluster) map[string][]string {
	seen := map[string]map[string]bool{}
	each(c, func(_ *graph.Kustomization, o *graph.Object) {
		if o.HelmRelease == "" || o.ID.Namespace == "" {
			return
		}
		if seen[o.HelmRelease] == nil {
			seen[o.HelmRelease] = map[string]bool{}
		}
		seen[o.HelmRelease][o.ID.Namespace] = true
	})
	out := map[string][]string{}
	for hr, set := range seen {
		for ns := range set {
			out[hr] = append(out[hr], ns)
		}
		sort.Strings(out[hr])
	}
	return out
}
