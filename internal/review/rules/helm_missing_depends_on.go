package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// helmReleaseNeeds reports a HelmRelease whose rendered objects are of a kind whose CRD
// another HelmRelease's chart installs, when nothing orders that HelmRelease first:
// helm-controller reconciles HelmReleases concurrently and orders them only by their own
// dependsOn (checkDependencies), so the dependent's install fails on the unknown kind
// (Helm's "resource mapping not found ... ensure CRDs are installed first") until the
// provider has installed. Ordered first means a HelmRelease dependsOn path to the provider,
// or the dependent's Kustomization applying after the provider's, which waits for its
// HelmReleases (wait: true or a HelmRelease healthCheck). One finding per pair, on the
// dependent's line, naming the kinds.
func helmReleaseNeeds(c *graph.Cluster, env *Env) []Finding {
	v := env.view(c)
	hrs := helmReleases(c)
	byName := map[string]hrNode{}
	for _, h := range hrs {
		byName[h.ref.String()] = h
	}
	type pair struct{ from, to string }
	kinds := map[pair][]string{}
	charts := map[pair]string{}
	var pairs []pair
	each(c, func(ks *graph.Kustomization, o *graph.Object) {
		if o.HelmRelease == "" || builtin(o.ID.Group, o.ID.Kind) || env.Catalog.Preinstalled(o.ID.Group) {
			return
		}
		gk := o.ID.Group + "/" + o.ID.Kind
		rk, ok := v.chartCRDs[gk]
		if _, shipped := v.crdOwners[gk]; shipped || !ok || rk.HelmRelease == o.HelmRelease {
			return
		}
		p := pair{o.HelmRelease, rk.HelmRelease}
		if _, seen := kinds[p]; !seen {
			pairs = append(pairs, p)
			charts[p] = rk.Chart
		}
		if k := kindName(o.ID); !slices.Contains(kinds[p], k) {
			kinds[p] = append(kinds[p], k)
		}
	})
	var out []Finding
	for _, p := range pairs {
		from, ok1 := byName[p.from]
		to, ok2 := byName[p.to]
		if !ok1 || !ok2 || helmDependsOnPath(byName, from.ref, to.ref) || kustomizationOrders(v, from.ks, to.ks) {
			continue
		}
		sort.Strings(kinds[p])
		id := from.o.ID
		what := strings.Join(kinds[p], ", ")
		f := Finding{Rule: "missing-depends-on", Severity: Error, Cluster: c.Name, Kustomization: from.ks.String(), Object: &id,
			Message: fmt.Sprintf("HelmRelease %s's chart renders %s, whose CRD HelmRelease %s (chart %s) installs, but %s has no dependsOn path to %s: helm-controller reconciles them concurrently, so on a cold cluster the install of %s fails on the unknown kind until %s has installed.",
				from.ref, what, to.ref, charts[p], from.ref, to.ref, from.ref, to.ref),
			File: from.o.File, Line: from.o.Line, key: "HelmRelease " + to.ref.String()}
		if helmDependsOnPath(byName, to.ref, from.ref) {
			f.Message += fmt.Sprintf(" %s already depends on %s, so a dependsOn edge back would be a cycle.", to.ref, from.ref)
			f.Suggestion = fmt.Sprintf("Move the CRD of %s out of HelmRelease %s (into %s's chart or a HelmRelease both depend on).", what, to.ref, from.ref)
		} else {
			f.Suggestion = fmt.Sprintf("Set in HelmRelease %s (%s:%d):\n  dependsOn:\n%s", from.ref, from.o.File, helmSpecLine(c, from), helmDependsOnList(from, to.ref))
		}
		out = append(out, f)
	}
	return out
}

// helmDependsOnPath reports whether from reaches to through HelmRelease dependsOn edges.
func helmDependsOnPath(byName map[string]hrNode, from, to graph.Ref) bool {
	seen := map[graph.Ref]bool{}
	stack := []graph.Ref{from}
	for len(stack) > 0 {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		h, ok := byName[r.String()]
		if !ok {
			continue
		}
		for _, d := range h.dependsOn() {
			if d == to {
				return true
			}
			if !seen[d] {
				seen[d] = true
				stack = append(stack, d)
			}
		}
	}
	return false
}

// kustomizationOrders reports whether Kustomization from applies only after to is Ready
// with its HelmReleases installed: from applies after to, and to waits for HelmReleases.
func kustomizationOrders(v *view, from, to graph.Ref) bool {
	return from != to && v.appliesAfter(from, to) && !v.appliesAfter(to, from) && waitsFor(v.c.Kustomizations[to], helmGroup+"/HelmRelease")
}

// helmSpecLine locates where dependsOn goes in h's manifest: its dependsOn key, else spec.
func helmSpecLine(c *graph.Cluster, h hrNode) int {
	if len(h.dependsOn()) > 0 {
		return lineAfter(c, h.o.File, h.o.Line, dependsOnKey)
	}
	return lineAfter(c, h.o.File, h.o.Line, specKey)
}

// helmDependsOnList renders h's dependsOn with provider appended, as it should read.
func helmDependsOnList(h hrNode, provider graph.Ref) string {
	var b strings.Builder
	for _, d := range append(h.dependsOn(), provider) {
		b.WriteString("    - name: " + d.Name + "\n")
		if d.Namespace != h.ref.Namespace {
			b.WriteString("      namespace: " + d.Namespace + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}
