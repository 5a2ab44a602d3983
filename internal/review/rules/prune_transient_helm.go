package rules

import (
	"fmt"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// helmTransient judges a move into or out of a chart (docs/rules.md prune-transient):
//   - Kustomization → chart: Helm's apply keeps the kustomize.toolkit.fluxcd.io/name and
//     /namespace labels the old Kustomization set (they are that field manager's), and its
//     garbage collection deletes every stale inventory object whose labels still match
//     (fluxcd/pkg ssa ResourceManager.Delete, DeleteOptions.Inclusions): the object is
//     deleted whatever the order, and stays deleted until the release's next upgrade when
//     helm-controller applied it first;
//   - chart → anything: the old release's upgrade deletes what left its manifest, whoever
//     owns it by then (helm pkg/kube/client.go Client.Update). Its uninstall is
//     helm-uninstall's finding.
//
// It says nothing when the old owner leaves the object (protected, no prune, helmKeeps,
// no upgrade of the old release).
func helmTransient(m Move, base, head *graph.Cluster, hv *view) (Finding, bool) {
	b, o := m.base, m.head
	to := Owner(m.To, m.ToHelmRelease)
	var msg, sugg string
	if m.FromHelmRelease == "" {
		old := b.Owner
		if protected(b) || !garbageCollects(old, base, head) {
			return Finding{}, false
		}
		order := fmt.Sprintf("whichever runs first: when helm-controller applies it before %s prunes, the object stays deleted until the release's next upgrade", old)
		switch {
		case o.Owner == old:
			order = fmt.Sprintf("%s prunes it in the reconcile that applies the HelmRelease, and helm-controller re-creates it when it installs or upgrades the release", old)
		case hv.ancestor(old, o.Owner) || hv.dependsOnPath(o.Owner, old):
			order = fmt.Sprintf("%s prunes it before %s applies the HelmRelease, and helm-controller re-creates it when it installs or upgrades the release", old, o.Owner)
		}
		msg = fmt.Sprintf("%s moves from Kustomization %s into %s. Helm never removes the kustomize.toolkit.fluxcd.io/name and /namespace labels %s set on it, "+
			"and %s's garbage collection deletes every object it no longer applies that still carries them, so it deletes this one (certain; %s).",
			o.ID, old, to, old, old, order)
		sugg = pruneSuggestion(b, old)
	} else {
		if helmDeletes(b, base, head) != "upgrade" {
			return Finding{}, false
		}
		msg = fmt.Sprintf("%s moves from %s to %s. The upgrade of HelmRelease %s deletes every object of its old manifest that the new one lacks, whoever owns it by then, "+
			"so it deletes this one (certain): if %s applies it first, the upgrade deletes it again and it comes back only when %s next reconciles.",
			o.ID, Owner(m.From, m.FromHelmRelease), to, m.FromHelmRelease, to, to)
		sugg = fmt.Sprintf("Merge the move in two steps: first add the annotation `helm.sh/resource-policy: keep` to %s in the chart of HelmRelease %s (template %s, or through the HelmRelease's postRenderers) "+
			"and let helm-controller upgrade the release, then move it: Helm leaves objects so annotated (drop the annotation later).", o.ID, m.FromHelmRelease, b.Template)
	}
	sev := Warning
	if transientCritical(o.ID) {
		sev = Error
	}
	f := objectFinding("prune-transient", sev, head.Name, o, b.Owner)
	if m.FromHelmRelease == "" && b.File != "" {
		// The head object is a chart's: its file:line is the HelmRelease's. What the old
		// Kustomization prunes is the manifest the PR takes out of its file, where the
		// suggestion's annotation goes too (destructive-prune names a removed object so).
		f.File, f.Line = b.File, b.Line
	}
	f.Message = msg + " Flux deletes the object and re-creates it (new UID): " + recreateLoss(b, base, head, false) + "."
	f.Suggestion = sugg
	if m.FromHelmRelease == "" {
		f = withGCRace(f, b.Owner, base, head)
	}
	return f, true
}

// keptFight reports a move out of a Kustomization that is removed but kept (keptReason)
// whose folder still holds the object: the old Kustomization keeps applying it with its
// last spec, so the two fight over it (a duplicate-owner, not a prune-transient).
func keptFight(cluster string, m Move, base, head *graph.Cluster) (Finding, bool) {
	old := m.base.Owner
	why := keptReason(old, base, head)
	b := base.Kustomizations[old]
	if why == "" || b.Spec.Suspend || !underPath(m.head.File, b.Spec.Path) {
		return Finding{}, false
	}
	f := objectFinding("duplicate-owner", Error, cluster, m.head, old)
	f.Message = fmt.Sprintf("%s moves from %s to %s, but %s: it keeps applying %s from path %s (now %s:%d) as %s does, "+
		"so the two Kustomizations overwrite each other on every reconcile and either may prune it.",
		m.Object, old, m.To, why, m.Object, b.Spec.Path, m.head.File, m.head.Line, m.To)
	f.Suggestion = fmt.Sprintf("Let the old Kustomization go first: set `prune: true` on its parent (or drop its `kustomize.toolkit.fluxcd.io/prune: disabled`) before renaming; "+
		"or, once this merges, run `flux suspend kustomization %s -n %s` and then `flux delete kustomization %s -n %s` (the finalizer of a suspended Kustomization prunes nothing).",
		old.Name, old.Namespace, old.Name, old.Namespace)
	f.refs = []graph.Ref{old}
	return f, true
}
