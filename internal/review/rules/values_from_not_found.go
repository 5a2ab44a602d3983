package rules

import (
	"fmt"
	"regexp"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// valuesFromNotFound reports a head HelmRelease `spec.valuesFrom` entry (not optional)
// whose ConfigMap or Secret, in the HelmRelease's namespace, the base graph has and the head
// one has nowhere: the change removes it, its Kustomization prunes it, or it moves out of
// the cluster. A change rule: a source only the head adds was not rendered at base, which
// says nothing about the base cluster. helm-controller composes the values before it installs or upgrades
// (reconcileRelease, internal/controller/helmrelease_controller.go, through fluxcd/pkg
// chartutil ChartValuesFromReferences), and a missing reference fails that with
// ValuesError (chartutil ErrValuesReference: "could not resolve <Kind> chart values
// reference '<ns>/<name>' ..."): no release happens until it exists.
// A source neither commit renders is made at runtime or out of band (a SOPS-less Secret, an
// ExternalSecret, a bootstrap script): unknown, so no finding (the HelmRelease is listed
// not reviewed). A source that moves to a Kustomization applied later is missing-depends-on's.
// Suspended HelmReleases reconcile nothing.
func valuesFromNotFound(base, c *graph.Cluster, env *Env) []Finding {
	v, ov := env.view(c), env.view(base)
	var out []Finding
	for _, h := range helmReleases(c) {
		if h.suspended() {
			continue
		}
		seen := map[graph.ObjectID]bool{}
		for _, ref := range configRefs(h.o) {
			id := graph.ObjectID{Kind: ref[0], Namespace: h.ref.Namespace, Name: ref[1]}
			was := lostSource(v, ov, seen, id)
			if len(was) == 0 {
				continue
			}
			line := h.o.Line
			if h.o.HelmRelease == "" {
				line = lineAfter(c, h.o.File, h.o.Line, valuesFromKey, nameEntry(ref[1]))
			}
			idc := h.o.ID
			out = append(out, Finding{
				Rule: "values-from-not-found", Severity: Error, Cluster: c.Name, Kustomization: h.ks.String(), Object: &idc,
				Message: fmt.Sprintf("HelmRelease %s takes values from %s %s/%s (valuesFrom, not optional), which the base commit has (from %s) and the change leaves nowhere in cluster %s: "+
					"helm-controller fails to compose the values (ValuesError, 'could not resolve %s chart values reference '%s' ...'), so it never installs or upgrades the release until the %s exists.",
					h.ref, ref[0], id.Namespace, id.Name, joinRefs(was), c.Name, ref[0], id.Namespace+"/"+id.Name, ref[0]),
				Suggestion: fmt.Sprintf("Keep %s %s/%s in the repository (in Kustomization %s or one it dependsOn), or remove its entry from spec.valuesFrom of HelmRelease %s (%s:%d), or mark it `optional: true` if the chart renders without it.",
					ref[0], id.Namespace, id.Name, h.ks, h.ref, h.o.File, line),
				File: h.o.File, Line: line, key: id.String(),
			})
		}
	}
	return out
}

var valuesFromKey = regexp.MustCompile(`^\s*valuesFrom:`)

// joinRefs joins Kustomizations as "a, b".
func joinRefs(refs []graph.Ref) string {
	s := make([]string, len(refs))
	for i, r := range refs {
		s[i] = r.String()
	}
	return joinAnd(s)
}
