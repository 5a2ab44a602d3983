package rules

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// maxListed bounds the objects a message names; the rest are counted.
const maxListed = 5

// helmUninstall reports each base HelmRelease whose release helm-controller uninstalls
// once head applies (uninstallReason: removed under garbage collection, or a changed
// release name, release namespace or storage namespace). The uninstall deletes every
// object of the release's manifest except those Helm keeps (helmKeeps). An error when it
// deletes an object that head applies from another owner (a chart replaced by plain
// manifests of the same names, thaum-xyz/ankhmorpork#1319: the replacement is deleted
// right after it is applied) or one of a critical kind; a warning otherwise. One finding
// per HelmRelease, at its head manifest when it still exists, else at its base one.
func helmUninstall(base, head *graph.Cluster, env *Env) []Finding {
	if base == nil || head == nil {
		return nil
	}
	hv := env.view(head)
	var out []Finding
	each(base, func(ks *graph.Kustomization, hr *graph.Object) {
		if !isHelmRelease(hr) || base.Owners[hr.ID][0] != hr {
			return
		}
		at := hr
		if now := applied(head, hr.ID); len(now) > 0 {
			at = now[0]
		}
		moved := moveReason(hr, at, base, head, hv)
		why := cmp.Or(moved, uninstallReason(hr, base, head))
		if why == "" {
			return
		}
		f, ok := uninstallFinding(head.Name, hr, at, why, base, head)
		if !ok {
			return
		}
		if moved != "" {
			f.Kustomization, f.Line = hr.Owner.String(), at.Line
			f.Suggestion = pruneSuggestion(hr, hr.Owner)
		}
		if moved != "" || at == hr {
			f = withGCRace(f, hr.Owner, base, head) // deleted by hr.Owner's garbage collection
		}
		if at == hr && renameOnly(hr, base, head) != nil {
			_, f.File, f.Line, _ = identityChange(hr.Owner, base, head) // the change that renames it
		}
		out = append(out, f)
	})
	return out
}

// moveReason says why helm-controller uninstalls the release of base HelmRelease hr that
// moves to another Kustomization (at, its head manifest), or "": the old Kustomization
// garbage-collects the HelmRelease object before the new one takes it over (gcMode, as
// prune-transient orders any move), so the object is deleted, helm-controller's finalizer
// uninstalls the release (controller/helmrelease_controller.go reconcileDelete →
// reconcileReleaseDeletion, unless suspended), and the HelmRelease the new Kustomization
// applies installs it again from nothing. A move whose old owner is kept and fights over
// the object is keptFight's duplicate-owner.
func moveReason(hr, at *graph.Object, base, head *graph.Cluster, hv *view) string {
	if at == hr || at.Owner == hr.Owner || suspended(hr) || protected(hr) {
		return ""
	}
	m := Move{Object: hr.ID, From: hr.Owner.String(), To: at.Owner.String(), base: hr, head: at}
	if _, fight := keptFight(head.Name, m, base, head); fight {
		return ""
	}
	mode := gcMode(m, base, head, hv)
	if mode == "" {
		return ""
	}
	return fmt.Sprintf("%s moves from %s to %s, and %s garbage-collects it on the way: %s. Deleting the HelmRelease makes helm-controller's finalizer uninstall release %s, which the HelmRelease applied by %s then installs again from nothing",
		hr.ID, hr.Owner, at.Owner, hr.Owner, mode, releaseLabel(hr), at.Owner)
}

// uninstallFinding is the finding for the uninstall of base HelmRelease hr, located at
// at; none when Helm keeps everything the release holds.
func uninstallFinding(cluster string, hr, at *graph.Object, why string, base, head *graph.Cluster) (Finding, bool) {
	name := hrName(hr.ID)
	var deleted, elsewhere, crit, keptCRDs, created []string
	var kept, stays keptObjects // left unmanaged; left and rendered again at head
	for _, o := range base.Kustomizations[hr.Owner].Objects {
		if o.HelmRelease != name {
			continue
		}
		if createdNamespace(o) {
			created = append(created, o.ID.String())
			continue
		}
		if helmKeeps(o, true) {
			if _, hook := o.Body.GetAnnotations()["helm.sh/hook"]; hook {
				continue
			}
			if len(applied(head, o.ID)) > 0 {
				stays.add(o)
				continue
			}
			kept.add(o)
			if isCRD(o.ID) {
				keptCRDs = append(keptCRDs, o.ID.String())
			}
			continue
		}
		deleted = append(deleted, o.ID.String())
		if by := appliedElsewhere(o, head); by != "" {
			elsewhere = append(elsewhere, fmt.Sprintf("%s (by %s)", o.ID, by))
		}
		if critical(o.ID) {
			crit = append(crit, o.ID.String()+consequence(o.ID))
		}
	}
	unknown := releaseUnknown(base.Kustomizations[hr.Owner], hr.ID)
	if len(deleted) == 0 && unknown == "" && kept.len() == 0 {
		return Finding{}, false
	}
	sev := Warning
	msg := fmt.Sprintf("%s: the uninstall deletes %d object(s) of the release (%s)", why, len(deleted), listed(deleted))
	if len(deleted) == 0 {
		sev = Notice // Helm keeps all of it
		msg = fmt.Sprintf("%s: the uninstall deletes nothing", why)
	}
	if unknown != "" {
		msg = fmt.Sprintf("%s: what it deletes is unknown, since %s", why, unknown)
	}
	if len(elsewhere) > 0 {
		sev = Error
		msg += fmt.Sprintf(". Applied at head by another owner: %s; that does not save them: the uninstall deletes each right after its owner applies it, and it stays deleted until that owner reconciles again", listed(elsewhere))
	}
	if len(crit) > 0 {
		sev = Error
		msg += fmt.Sprintf(". It deletes %s", listed(crit))
	}
	if len(created) > 0 {
		msg += fmt.Sprintf(". %s stays: install.createNamespace created it outside the release manifest, and Helm's uninstall never deletes it", listed(created))
	}
	others, crds := kept.split()
	if others.len() > 0 {
		msg += fmt.Sprintf(". Helm leaves %d object(s) in the cluster (%s): orphans that no release or Kustomization manages any more; delete them by hand when they are no longer needed", others.len(), others)
	}
	if stays.len() > 0 {
		msg += fmt.Sprintf(". Helm leaves %d object(s) in the cluster (%s)%s; the release at head finds them in place", stays.len(), stays, stays.crsClause())
	}
	if crds.len() > 0 {
		// A kept CRD stays where the release ran, with the custom resources of its kinds;
		// nothing at head installs it elsewhere. Never advise deleting it.
		msg += fmt.Sprintf(". Helm leaves %s (%s), and with it every custom resource of its kind that the release does not render itself: they stay in the clusters that run the release, managed by nothing. "+
			"%s: deleting a CRD makes the API server delete every custom resource of its kind. A cluster bootstrapped from this commit never gets it: nothing at head installs it",
			listed(crds.all()), crds.reasons(), keepCRDs)
	}
	f := objectFinding("helm-uninstall", sev, cluster, at, at.Owner)
	if at != hr {
		f.File, f.Line = releaseFieldLine(head, hr, at) // the changed release target's line, inside the diff
	}
	f.Message = msg + "."
	f.Suggestion = uninstallAdvice(name, at != hr)
	if at == hr && kept.len() > 0 && len(deleted) > 0 {
		f.Suggestion = keptAdvice(name, kept.all(), deleted, len(keptCRDs) > 0)
	}
	if len(deleted) == 0 && unknown == "" {
		f.Suggestion = onlyKeptAdvice(others, crds)
	}
	return f, true
}

// keptObjects are the objects of a release that Helm's uninstall leaves, by reason. CRDs of
// the chart's crds/ are never in the release manifest (helm pkg/action/install.go
// installCRDs creates them apart from rel.Manifest), and Uninstall.deleteRelease deletes only
// what it splits from rel.Manifest (pkg/action/uninstall.go); filterManifestsToKeep holds back
// the ones annotated helm.sh/resource-policy: keep (pkg/action/resource_policy.go). A
// custom resource of a kept CRD stays with it unless the release itself renders it.
type keptObjects struct{ crds, keep []string }

func (k *keptObjects) add(o *graph.Object) {
	if crdsFile(o.Template) {
		k.crds = append(k.crds, o.ID.String())
	} else {
		k.keep = append(k.keep, o.ID.String())
	}
}

func (k keptObjects) len() int { return len(k.crds) + len(k.keep) }

// keepCRDs is what findings say of a CRD Helm leaves: never delete it by hand.
const keepCRDs = "Do not delete a kept CRD by hand"

// split separates the CustomResourceDefinitions of k (either reason) from its other objects:
// an orphaned object may be deleted by hand, a CRD never (the API server deletes every
// custom resource of its kind with it: apiextensions-apiserver's finalizer
// customresourcecleanup.apiextensions.k8s.io).
func (k keptObjects) split() (others, crds keptObjects) {
	isCRDName := func(s string) bool { return strings.HasPrefix(s, "CustomResourceDefinition.apiextensions.k8s.io/") }
	for _, s := range k.crds {
		if isCRDName(s) {
			crds.crds = append(crds.crds, s)
		} else {
			others.crds = append(others.crds, s)
		}
	}
	for _, s := range k.keep {
		if isCRDName(s) {
			crds.keep = append(crds.keep, s)
		} else {
			others.keep = append(others.keep, s)
		}
	}
	return others, crds
}

// reasons says why Helm leaves the CRDs of k: "a CRD of the chart's crds/, which the
// uninstall never deletes", "annotated helm.sh/resource-policy: keep", or both.
func (k keptObjects) reasons() string {
	var parts []string
	if len(k.crds) > 0 {
		parts = append(parts, "the chart's crds/, which the uninstall never deletes")
	}
	if len(k.keep) > 0 {
		parts = append(parts, "annotated helm.sh/resource-policy: keep")
	}
	return strings.Join(parts, "; ")
}

// onlyKeptAdvice is the suggestion when the uninstall deletes nothing: Helm leaves every
// object of the release. The others may be removed by hand; the CRDs stay.
func onlyKeptAdvice(others, crds keptObjects) string {
	var s []string
	if others.len() > 0 {
		s = append(s, fmt.Sprintf("Nothing to do if the kept objects should stay in the cluster unmanaged: %s. To have them managed again, apply them from a Kustomization or another release; to remove them, delete them by hand (no controller will).", listed(others.all())))
	}
	if crds.len() > 0 {
		s = append(s, fmt.Sprintf("Nothing to do for the kept CRDs (%s): they stay with the custom resources of their kinds. %s: deleting a CRD makes the API server delete every custom resource of its kind. To have them managed again, or installed on new clusters, apply them from a Kustomization or another release.", listed(crds.all()), keepCRDs))
	}
	return strings.Join(s, " ")
}

func (k keptObjects) all() []string { return append(append([]string(nil), k.crds...), k.keep...) }

// String names the objects by reason, e.g. "CRDs of the chart's crds/, which the uninstall
// never deletes: A; annotated helm.sh/resource-policy: keep: B".
func (k keptObjects) String() string {
	var parts []string
	if len(k.crds) > 0 {
		parts = append(parts, "CRDs of the chart's crds/, which the uninstall never deletes: "+listed(k.crds))
	}
	if len(k.keep) > 0 {
		parts = append(parts, "annotated helm.sh/resource-policy: keep: "+listed(k.keep))
	}
	return strings.Join(parts, "; ")
}

// crsClause is the note that the custom resources of kept CRDs stay too, "" without one.
func (k keptObjects) crsClause() string {
	for _, s := range k.all() {
		if strings.HasPrefix(s, "CustomResourceDefinition.apiextensions.k8s.io/") {
			return ", and the custom resources of those CRDs with them, except the ones the release renders"
		}
	}
	return ""
}

// uninstallAdvice is the two-step advice for the uninstall of HelmRelease name; renamed is
// true when head still applies the HelmRelease (its release is renamed, so helm-controller
// installs a new release). Helm's uninstall leaves an object annotated
// `helm.sh/resource-policy: keep` with its old meta.helm.sh/release-name/-namespace
// (helm pkg/action/uninstall.go, pkg/action/resource_policy.go filterManifestsToKeep). The
// install of the new release then refuses it ("invalid ownership metadata", helm
// pkg/action/validate.go existingResourceConflict) unless it takes ownership
// (pkg/action/install.go: TakeOwnership uses requireAdoption, which adopts any existing
// object); helm-controller sets TakeOwnership unless spec.install.disableTakeOwnership
// (internal/action/install.go newInstall). kustomize-controller's server-side apply checks
// no Helm annotation, so plain manifests take a kept object over as it is.
func uninstallAdvice(name string, renamed bool) string {
	first := fmt.Sprintf("Merge in two steps: first add the annotation `helm.sh/resource-policy: keep` to the objects that must survive "+
		"through the chart of HelmRelease %s (or its postRenderers) and let helm-controller upgrade the release; then merge this change. ", name)
	if renamed {
		return first + "Helm leaves the kept objects annotated with the old release (meta.helm.sh/release-name, meta.helm.sh/release-namespace); " +
			"helm-controller's install of the new release takes ownership of them, unless spec.install.disableTakeOwnership is true: then Helm refuses them " +
			"('invalid ownership metadata') and, before the second step, their two annotations must be set to the new release name and storage namespace " +
			"(or disableTakeOwnership removed). Or, if the objects should go, nothing to do."
	}
	return first + "Helm leaves the kept objects, and plain manifests of the same objects take them over on kustomize-controller's apply (it checks no Helm annotation; " +
		"remove the `helm.sh/resource-policy` annotation and the meta.helm.sh annotations from the manifests' objects if they are copied from the chart). " +
		"Or, if the objects should go, nothing to do."
}

// keptAdvice is the suggestion for the uninstall of removed HelmRelease name when Helm
// already leaves some of its objects (kept): asking for the annotation again would repeat
// what is done; what is left to decide is the deleted objects and, for kept CRDs, the
// clusters bootstrapped later, which no release installs them on.
func keptAdvice(name string, kept, deleted []string, crds bool) string {
	s := fmt.Sprintf("Nothing to add for the kept objects, Helm already leaves them: %s. If the deleted objects (%s) should go, nothing to do; to keep them too, "+
		"first add the annotation `helm.sh/resource-policy: keep` to them through the chart of HelmRelease %s (or its postRenderers) and let helm-controller upgrade the release, then merge this change.",
		listed(kept), listed(deleted), name)
	if crds {
		s += " For new clusters, install the kept CRDs from a Kustomization or another release (plain manifests take the kept objects over on kustomize-controller's apply)."
	}
	return s
}

// appliedElsewhere names the head owner that applies o's identity other than o's own
// HelmRelease ("" when none does): a Kustomization's build or another chart.
func appliedElsewhere(o *graph.Object, head *graph.Cluster) string {
	for _, h := range applied(head, o.ID) {
		if h.HelmRelease != o.HelmRelease {
			return Owner(h.Owner.String(), h.HelmRelease)
		}
	}
	return ""
}

// releaseUnknown says why the objects of HelmRelease id in base Kustomization ks are not
// known (its chart was not rendered or failed at base), or "".
func releaseUnknown(ks *graph.Kustomization, id graph.ObjectID) string {
	for _, s := range ks.HelmReleaseSkipped {
		if s.HelmRelease == id {
			return "its chart was not rendered at the base commit (" + s.Reason + ")"
		}
	}
	for _, e := range ks.HelmReleaseErrors {
		if e.HelmRelease == id {
			return "its chart failed to render at the base commit"
		}
	}
	return ""
}

// listed joins up to maxListed items and counts the rest.
func listed(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:maxListed], ", "), len(items)-maxListed)
}
