package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// missingDependsOn reports objects (and Kustomizations) that need something only another
// Kustomization provides, when nothing orders that provider first on a cold cluster: no
// dependsOn path and no parent chain leads to it. Flux reconciles such tiers concurrently
// (--concurrent), so the dry-run fails with 'namespace not found' or 'no matches for kind'
// (flux-semantics.md §3 and §5). In a Kustomization whose remote resources were not
// fetched, CRDs and Namespaces are not needs: the remote content may ship them (unknownNeeds).
// A HelmRelease whose chart needs another chart's CRD is ordered by HelmRelease dependsOn
// (helmReleaseNeeds).
func missingDependsOn(c, other *graph.Cluster, env *Env) []Finding {
	v := env.view(c)
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		if missing := v.unordered(ref, v.kustomizationNeeds(ks)); len(missing) > 0 {
			for _, p := range sortedKeysByRef(missing) {
				f := Finding{Rule: "missing-depends-on", Cluster: c.Name, Kustomization: ref.String(), File: ks.File, Line: ks.Line, refs: []graph.Ref{ref, p}}
				fillMissing(&f, v, other, ks, ref.String(), p, missing[p])
				out = append(out, f)
			}
		}
		for _, o := range ks.Objects {
			missing := v.unordered(ref, knownNeeds(ks, v.objectNeeds(o, env)))
			for _, p := range sortedKeysByRef(missing) {
				f := objectFinding("missing-depends-on", None, c.Name, o, ref)
				f.refs = []graph.Ref{p}
				fillMissing(&f, v, other, ks, o.ID.String(), p, missing[p])
				out = append(out, f)
			}
		}
	}
	return append(out, helmReleaseNeeds(c, env)...)
}

// knownNeeds drops the first-stage needs (CRDs, Namespaces) of an object of ks when ks has
// remote resources that were not fetched: release bundles (install.yaml, crds.yaml) ship
// exactly those, and kustomize-controller applies them before the rest of ks
// (fluxcd/pkg ssa ResourceManager.ApplyAllStaged), so ks may need no other provider. What
// was not fetched is unknown, never a failure.
func knownNeeds(ks *graph.Kustomization, needs []need) []need {
	if len(ks.Remote) == 0 {
		return needs
	}
	out := needs[:0:0]
	for _, n := range needs {
		if !n.firstStage {
			out = append(out, n)
		}
	}
	return out
}

// unordered groups, by provider, the needs of holder that no provider satisfies: holder
// provides it itself, or applies after one of the providers.
func (v *view) unordered(holder graph.Ref, needs []need) map[graph.Ref][]need {
	out := map[graph.Ref][]need{}
	for _, n := range needs {
		ok := false
		for _, p := range n.providers {
			if p == holder && n.runtime != nil {
				ok = true // same pass: runtime-crd-same-pass reports it
			}
			if p == holder && n.beforeBuild {
				continue // only its own apply makes it, which its build waits for
			}
			// A path both ways is a cycle: nothing applies, so nothing is ordered.
			if v.appliesAfter(holder, p) && (p == holder || !v.appliesAfter(p, holder)) {
				ok = true
			}
			// A dependsOn cycle through both: neither ever becomes Ready, so Flux applies
			// neither and the edge exists; depends-on-cycle reports it, its fix orders them.
			if p != holder && v.dependsOnPath(holder, p) && v.dependsOnPath(p, holder) {
				ok = true
			}
		}
		if !ok {
			p := v.upstream(n.providers)
			out[p] = append(out[p], n)
		}
	}
	return out
}

// upstream picks, among several providers, one that applies after none of the others: the
// dependsOn edge to it orders the holder after the earliest source of the thing.
func (v *view) upstream(providers []graph.Ref) graph.Ref {
	for _, p := range providers {
		first := true
		for _, q := range providers {
			if q != p && v.appliesAfter(p, q) {
				first = false
				break
			}
		}
		if first {
			return p
		}
	}
	return providers[0]
}

func fillMissing(f *Finding, v *view, other *graph.Cluster, ks *graph.Kustomization, subject string, provider graph.Ref, needs []need) {
	var what []string
	for _, n := range needs {
		what = append(what, n.what)
		f.Severity = max(f.Severity, n.severity)
	}
	consequence := "it stays unhealthy until they exist"
	if f.Severity == Error {
		consequence = "on a cold cluster its apply fails until they exist"
	}
	f.Message = fmt.Sprintf("%s in %s needs %s from %s, but %s has no dependsOn path to %s: %s.",
		subject, ks.Ref, strings.Join(what, " and "), provider, ks.Ref, provider, consequence)
	switch {
	case provider == ks.Ref:
		f.Message = fmt.Sprintf("Kustomization %s needs %s, which only %s itself creates: kustomize-controller loads the variables before it builds or applies anything, "+
			"so on a cold cluster, or once the existing one is pruned or deleted, %s fails with \"substitute from ... not found\" and can never apply it, nor anything that dependsOn %s; no dependsOn can order it first.",
			ks.Ref, strings.Join(what, " and "), ks.Ref, ks.Ref, ks.Ref)
		f.Suggestion = fmt.Sprintf("Move %s into a Kustomization that %s dependsOn (or an ancestor of it), or mark the substituteFrom entry `optional: true` if every variable it gives has a default.",
			strings.Join(what, " and "), ks.Ref)
	case v.ancestor(ks.Ref, provider):
		f.Message += fmt.Sprintf(" %s is created by %s itself, so no dependsOn can order it first.", provider, ks.Ref)
		f.Suggestion = fmt.Sprintf("Move %s into %s (or a tier that dependsOn it), or emit %s in %s itself.", subject, provider, strings.Join(what, " and "), ks.Ref)
	case v.dependsOnPath(provider, ks.Ref):
		f.Message += fmt.Sprintf(" %s already depends on %s, so a dependsOn edge back would be a cycle.", provider, ks.Ref)
		f.Suggestion = fmt.Sprintf("Move %s into %s (or a tier after it), or move %s into %s or a tier before it.", subject, provider, strings.Join(what, " and "), ks.Ref)
	case v.waitDeadlock(ks.Ref, provider) != nil:
		a := *v.waitDeadlock(ks.Ref, provider)
		f.Message += fmt.Sprintf(" %s waits for %s to become Ready (wait or healthChecks), and %s cannot become Ready before %s does, so a dependsOn edge to %s would deadlock.",
			a, ks.Ref, provider, a, provider)
		f.Suggestion = fmt.Sprintf("Move %s into %s (or a tier after it), move %s into %s or a tier %s does not wait for, or let %s not wait for %s (wait: false, healthChecks without it).",
			subject, provider, strings.Join(what, " and "), a, a, a, ks.Ref)
	default:
		f.DependsOn = provider.String()
		f.Suggestion = fmt.Sprintf("Set in Kustomization %s (%s:%d):\n  dependsOn:\n%s", ks.Ref, ks.File, specLine(v.c, ks), dependsOnList(v.c, other, ks, provider))
	}
}

// dependsOnList renders ks's dependsOn with provider appended, as it should read.
// Entries absent from the cluster that stand for provider are replaced: provider's name in
// a wrong namespace, or provider's old name when it was renamed (same path in other, the
// other commit, as depends-on-not-found reports it).
func dependsOnList(c, other *graph.Cluster, ks *graph.Kustomization, provider graph.Ref) string {
	var b strings.Builder
	var deps []graph.Ref
	for _, d := range ks.Spec.DependsOn {
		if _, exists := c.Kustomizations[d]; exists {
			deps = append(deps, d)
			continue
		}
		if renamed, ok := renamedTo(d, c, other); d.Name != provider.Name && (!ok || renamed != provider) {
			deps = append(deps, d)
		}
	}
	for _, d := range append(deps, provider) {
		b.WriteString("    - name: " + d.Name + "\n")
		if d.Namespace != ks.Ref.Namespace {
			b.WriteString("      namespace: " + d.Namespace + "\n")
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// specLine locates where dependsOn goes in ks's manifest: its dependsOn key, else spec.
func specLine(c *graph.Cluster, ks *graph.Kustomization) int {
	if len(ks.Spec.DependsOn) > 0 {
		return lineAfter(c, ks.File, ks.Line, dependsOnKey)
	}
	return lineAfter(c, ks.File, ks.Line, specKey)
}

func sortedKeysByRef(m map[graph.Ref][]need) []graph.Ref {
	out := make([]graph.Ref, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}
