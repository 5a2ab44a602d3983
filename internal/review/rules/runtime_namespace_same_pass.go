package rules

import (
	"fmt"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// runtimeNamespaceSamePass reports an object in a Namespace that only a HelmRelease's
// chart creates (install.createNamespace with targetNamespace, or a template), when the
// object sits in the same Kustomization as that HelmRelease. kustomize-controller
// dry-runs every object of a stage before applying any (fluxcd/pkg ssa ApplyAllStaged,
// flux-semantics.md §3): the object fails with 'namespaces "X" not found', the stage is
// not applied, the HelmRelease with it, so helm-controller never creates the Namespace. A
// permanent deadlock on a cold cluster (kustomize-controller#511). Not in a Kustomization
// with remote resources not fetched: they may ship the Namespace (knownNeeds).
func runtimeNamespaceSamePass(c, _ *graph.Cluster, env *Env) []Finding {
	v := env.view(c)
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		if len(ks.Remote) > 0 {
			continue
		}
		for _, o := range ks.Objects {
			ns := o.ID.Namespace
			if o.HelmRelease != "" || ns == "" || ns == c.Root.Namespace {
				continue
			}
			n, ok := v.namespaceNeed(o)
			if !ok || n.runtime == nil || n.providers[0] != ref {
				continue
			}
			how := "chart creates"
			for _, p := range c.Owners[graph.ObjectID{Kind: "Namespace", Name: ns}] {
				if p.HelmRelease == n.runtime.HelmRelease && p.Template == "" {
					how = "install.createNamespace creates"
				}
			}
			f := objectFinding("runtime-namespace-same-pass", Error, c.Name, o, ref)
			f.Message = fmt.Sprintf("%s is in Namespace %s, which only HelmRelease %s's %s, once helm-controller installs it, but both are in %s: on a cluster without %s, Flux's dry-run fails with 'namespaces \"%s\" not found', nothing in the stage is applied, the HelmRelease included, and the Namespace never appears.",
				o.ID, ns, n.runtime.HelmRelease, how, ref, ns, ns)
			f.Suggestion = namespaceSplitFix(ks, o, n.runtime.HelmRelease, movedEntries(ks, v.movedDeps(env, ks, o), "    "))
			out = append(out, f)
		}
	}
	return out
}

// namespaceSplitFix is runtime-namespace-same-pass's suggestion for o in ks, whose Namespace
// only HelmRelease hr ("namespace/name") creates: a Namespace manifest in ks, or o moved to
// a Kustomization after ks (entries, its dependsOn list) with ks Ready only once the
// HelmRelease is (providerWait: dependsOn waits for Ready, which without wait or a
// healthCheck does not mean that helm-controller has created the Namespace).
func namespaceSplitFix(ks *graph.Kustomization, o *graph.Object, hr string, entries string) string {
	s := fmt.Sprintf("Add a Namespace %s manifest to %s (Helm's createNamespace then finds it and skips creating it), or move %s to a Kustomization with:\n  dependsOn:%s\n",
		o.ID.Namespace, ks.Ref, o.ID, entries)
	trigger := helmReleaseObject(ks, hr)
	if trigger == nil {
		return s + fmt.Sprintf("and `wait: true` on %s.", ks.Ref)
	}
	clause, snippet, why := providerWait(ks, trigger, "Namespace "+o.ID.Namespace)
	if clause == "" {
		return s + why
	}
	return s + strings.TrimPrefix(clause, ", ") + ". " + why + "\n" + strings.TrimSuffix(snippet, "\n")
}

// helmReleaseObject is ks's own HelmRelease manifest named hr ("namespace/name"), nil if none.
func helmReleaseObject(ks *graph.Kustomization, hr string) *graph.Object {
	for _, o := range ks.Objects {
		if isHelmRelease(o) && o.HelmRelease == "" && o.ID.Namespace+"/"+o.ID.Name == hr {
			return o
		}
	}
	return nil
}
