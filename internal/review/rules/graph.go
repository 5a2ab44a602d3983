package rules

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// view is a cluster graph with the relations rules reason about, computed once.
type view struct {
	c *graph.Cluster
	// crdOwners maps "group/Kind" to the Kustomizations that ship its CRD.
	crdOwners map[string][]graph.Ref
	// crdScope maps "group/Kind" to "Namespaced" or "Cluster" for CRDs in the graph.
	crdScope map[string]string
	// reach is the dependsOn relation, after dependsOn and parents (see appliesAfter).
	reach, after *reachability
	// secretWriters maps a Secret to the Kustomizations whose objects write it at runtime;
	// built on first use.
	secretWriters map[graph.ObjectID][]graph.Ref
	// chartCRDs maps "group/Kind" to the HelmRelease whose rendered chart ships its CRD:
	// helm-controller applies it when it installs the release, at runtime, so rules read it
	// as the catalog's chart entries (and prefer it to them).
	chartCRDs map[string]RuntimeKind
	// rendered holds the HelmReleases whose charts rendered: the catalog's chart entries
	// stand only for the others.
	rendered map[graph.ObjectID]bool
	// triggerRefs memoizes triggerOwners by trigger and chart.
	triggerRefs map[string][]graph.Ref
	// flux is what the cluster's Flux installation serves; built on first use.
	flux *installation
}

func newView(c *graph.Cluster) *view {
	v := &view{c: c, crdOwners: map[string][]graph.Ref{}, crdScope: map[string]string{}, chartCRDs: map[string]RuntimeKind{}}
	v.reach = newReachability(func(r graph.Ref) []graph.Ref {
		if ks := c.Kustomizations[r]; ks != nil {
			return ks.Spec.DependsOn
		}
		return nil
	})
	v.after = newReachability(func(r graph.Ref) []graph.Ref {
		ks := c.Kustomizations[r]
		if ks == nil {
			return nil
		}
		if ks.Parent == nil {
			return ks.Spec.DependsOn
		}
		return append(append([]graph.Ref(nil), ks.Spec.DependsOn...), *ks.Parent)
	})
	v.rendered = map[graph.ObjectID]bool{}
	for _, ref := range c.Order {
		for _, r := range c.Kustomizations[ref].Releases {
			v.rendered[r.HelmRelease] = true
		}
		for _, o := range c.Kustomizations[ref].Objects {
			if o.ID.Group != "apiextensions.k8s.io" || o.ID.Kind != "CustomResourceDefinition" {
				continue
			}
			group, _, _ := unstructured.NestedString(o.Body.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(o.Body.Object, "spec", "names", "kind")
			scope, _, _ := unstructured.NestedString(o.Body.Object, "spec", "scope")
			gk := group + "/" + kind
			v.crdScope[gk] = scope
			if o.HelmRelease != "" {
				if _, ok := v.chartCRDs[gk]; !ok {
					v.chartCRDs[gk] = RuntimeKind{Group: group, Kind: kind, Namespaced: scope == "Namespaced", ScopeKnown: true,
						Trigger: "helm.toolkit.fluxcd.io/HelmRelease", Chart: v.releaseChart(ref, o.HelmRelease), HelmRelease: o.HelmRelease}
				}
				continue
			}
			v.crdOwners[gk] = append(v.crdOwners[gk], ref)
		}
	}
	return v
}

// releaseChart names the chart of HelmRelease hr ("namespace/name") of Kustomization ref.
func (v *view) releaseChart(ref graph.Ref, hr string) string {
	ns, name, _ := strings.Cut(hr, "/")
	for _, o := range v.c.Owners[graph.ObjectID{Group: "helm.toolkit.fluxcd.io", Kind: "HelmRelease", Namespace: ns, Name: name}] {
		if o.Owner == ref {
			return v.chartOf(o)
		}
	}
	return ""
}

// runtimeKind returns what creates the CRD of "group/Kind" at runtime when no build ships
// it: a rendered HelmRelease's chart first, then the catalog (for charts not rendered).
func (v *view) runtimeKind(env *Env, gk string) (RuntimeKind, bool) {
	if rk, ok := v.chartCRDs[gk]; ok && !env.Catalog.Preinstalled(rk.Group) {
		return rk, true
	}
	return env.Catalog.Lookup(gk)
}

// owners returns the Kustomizations that emit id, in build order.
func (v *view) owners(id graph.ObjectID) []graph.Ref {
	var out []graph.Ref
	for _, o := range v.c.Owners[id] {
		out = append(out, o.Owner)
	}
	return out
}

// dependsOnPath reports whether from reaches to through spec.dependsOn, transitively
// (KC checkDependencies: from waits until to is Ready at the same revision).
func (v *view) dependsOnPath(from, to graph.Ref) bool {
	return v.reach.reaches(from, to)
}

// appliesAfter reports whether, on a cold cluster, from is applied only after to has
// applied: through dependsOn edges and through parents (a Kustomization exists only once
// its parent has applied it, after the parent's own dependencies are ready).
func (v *view) appliesAfter(from, to graph.Ref) bool {
	return from == to || v.after.reaches(from, to)
}

// ancestor reports whether a is a parent, grandparent... of b.
func (v *view) ancestor(a, b graph.Ref) bool {
	seen := map[graph.Ref]bool{}
	for ks := v.c.Kustomizations[b]; ks != nil && ks.Parent != nil && !seen[*ks.Parent]; ks = v.c.Kustomizations[*ks.Parent] {
		if *ks.Parent == a {
			return true
		}
		seen[*ks.Parent] = true
	}
	return false
}

// each calls fn for every object of every built Kustomization, in build order.
func each(c *graph.Cluster, fn func(ks *graph.Kustomization, o *graph.Object)) {
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		for _, o := range ks.Objects {
			fn(ks, o)
		}
	}
}

// complete reports whether ks rendered fully, so that an object missing from it is
// really gone (not hidden by a build error or an unmapped source).
func complete(ks *graph.Kustomization) bool {
	return ks != nil && ks.NotReviewed() == "" && ks.Err == nil
}

// annotated reports whether the object carries key=value as a label or annotation,
// value compared case-insensitively (fluxcd/pkg ssa utils.AnyInMetadata).
func annotated(o *graph.Object, key, value string) bool {
	for _, m := range []map[string]string{o.Body.GetLabels(), o.Body.GetAnnotations()} {
		if v, ok := m[key]; ok && strings.EqualFold(v, value) {
			return true
		}
	}
	return false
}
