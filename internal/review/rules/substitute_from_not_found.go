package rules

import (
	"fmt"
	"regexp"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// substituteFromNotFound reports a head Kustomization's spec.postBuild.substituteFrom entry
// (not optional) whose ConfigMap or Secret, in the Kustomization's namespace, the base graph
// has and the head graph has nowhere (renamed, removed, moved out of the cluster).
// kustomize-controller loads the variables before it applies anything (fluxcd/pkg
// kustomize/kustomize_varsub.go SubstituteVariables → loadVars): a Get that fails fails the
// build with "substitute from 'ConfigMap/<name>' error: configmaps \"<name>\" not found",
// and only `optional: true` skips a missing object. Error when an owner of it at base prunes
// (its garbage collection deletes it, so running clusters fail too); a warning when none
// does (the object stays on running clusters, a cluster bootstrapped from this commit
// fails). An object neither commit renders lives only in the cluster: unknown, no finding
// (the Kustomization stays partial). Suspended Kustomizations reconcile nothing.
func substituteFromNotFound(base, c *graph.Cluster, env *Env) []Finding {
	v, ov := env.view(c), env.view(base)
	var out []Finding
	for _, ref := range c.Order {
		ks := c.Kustomizations[ref]
		if ks == nil || ks.Spec.Suspend || ks.Spec.PostBuild == nil || ks.File == "" {
			continue
		}
		seen := map[graph.ObjectID]bool{}
		for _, s := range ks.Spec.PostBuild.SubstituteFrom {
			id := graph.ObjectID{Kind: s.Kind, Namespace: ref.Namespace, Name: s.Name}
			if s.Optional {
				continue
			}
			was := lostSource(v, ov, seen, id)
			if len(was) == 0 {
				continue
			}
			out = append(out, substituteFromFinding(c, base, ks, id, was))
		}
	}
	return out
}

// substituteFromFinding is the finding for ks's missing substituteFrom object id, which
// the base's Kustomizations was provided.
func substituteFromFinding(c, base *graph.Cluster, ks *graph.Kustomization, id graph.ObjectID, was []graph.Ref) Finding {
	line := lineAfter(c, ks.File, ks.Line, substituteFromKey, nameEntry(id.Name))
	sev, effect := Warning, fmt.Sprintf("none of them prunes, so running clusters keep the old %s and only a cluster bootstrapped from this commit fails", id.Kind)
	if pruner := prunerOf(base, was); pruner != "" {
		sev, effect = Error, fmt.Sprintf("Kustomization %s prunes it on every running cluster", pruner)
	}
	return Finding{
		Rule: "substitute-from-not-found", Severity: sev, Cluster: c.Name, Kustomization: ks.Ref.String(), File: ks.File, Line: line,
		Message: fmt.Sprintf("Kustomization %s substitutes variables from %s %s/%s (postBuild.substituteFrom, not optional), which the base commit has (from %s) and the change leaves nowhere in cluster %s; %s. "+
			"kustomize-controller then fails the Kustomization with \"substitute from '%s/%s' error: ... not found\" before applying anything, until the %s exists.",
			ks.Ref, id.Kind, id.Namespace, id.Name, joinRefs(was), c.Name, effect, id.Kind, id.Name, id.Kind),
		Suggestion: fmt.Sprintf("Keep %s %s/%s in the repository, or point the substituteFrom entry of Kustomization %s (%s:%d) at its new name, or mark it `optional: true` if every variable it gave has a default.",
			id.Kind, id.Namespace, id.Name, ks.Ref, ks.File, line),
		key: id.String(),
	}
}

// lostSource returns the base's providers (configProviders) of the ConfigMap or Secret id
// when the head's v has none and the base's ov has some: a source the change loses. It
// returns none for an id already in seen, and adds id to seen when the head has no
// provider. An id neither commit provides lives only in the cluster (made at runtime or
// out of band): unknown, so none either.
func lostSource(v, ov *view, seen map[graph.ObjectID]bool, id graph.ObjectID) []graph.Ref {
	if seen[id] || len(v.configProviders(id)) > 0 {
		return nil
	}
	seen[id] = true
	return ov.configProviders(id)
}

// prunerOf is the first of refs that base applies with prune: true; "" when none does.
func prunerOf(base *graph.Cluster, refs []graph.Ref) string {
	for _, r := range refs {
		if ks := base.Kustomizations[r]; ks != nil && ks.Spec.Prune {
			return r.String()
		}
	}
	return ""
}

var substituteFromKey = regexp.MustCompile(`^\s*substituteFrom:`)
