package rules

import (
	"fmt"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm"
)

// What Helm deletes of a release, read from helm-controller v1.6.3 and Helm v4
// (docs/rules.md helm-uninstall): an upgrade deletes the objects of the old manifest that
// the new one lacks (helm pkg/kube/client.go Client.Update: originals.Difference(targets)),
// an uninstall every object of the manifest (pkg/action/uninstall.go deleteRelease), both
// skipping those annotated helm.sh/resource-policy: keep. Neither touches the CRDs of
// crds/ (applied outside the release, helm-controller internal/action/crds.go applyCRDs)
// nor hooks (kept apart from the manifest, deleted by their hook-delete-policy).

const helmReleaseGroup = "helm.toolkit.fluxcd.io"

// isHelmRelease reports whether o is a HelmRelease a Kustomization applies (not one a
// chart renders: those are not rendered further).
func isHelmRelease(o *graph.Object) bool {
	return o.ID.Group == helmReleaseGroup && o.ID.Kind == "HelmRelease" && o.HelmRelease == ""
}

// hrName is a HelmRelease's "namespace/name", as Object.HelmRelease names it.
func hrName(id graph.ObjectID) string { return id.Namespace + "/" + id.Name }

// hrID is the ObjectID of HelmRelease "namespace/name".
func hrID(name string) graph.ObjectID {
	ns, n, _ := strings.Cut(name, "/")
	return graph.ObjectID{Group: helmReleaseGroup, Kind: "HelmRelease", Namespace: ns, Name: n}
}

// helmKeeps reports whether Helm leaves o when it uninstalls (uninstall) or upgrades its
// release: annotated helm.sh/resource-policy: keep, a hook, a CRD of crds/, or the
// Namespace of install.createNamespace (createdNamespace). The upgrade
// compares the live object's annotation with "keep" exactly (Client.Update), the uninstall
// the stored manifest's, trimmed and lowercased (filterManifestsToKeep): both are o as
// applied at base.
func helmKeeps(o *graph.Object, uninstall bool) bool {
	ann := o.Body.GetAnnotations()
	policy := ann["helm.sh/resource-policy"]
	if uninstall {
		policy = strings.ToLower(strings.TrimSpace(policy))
	}
	if policy == "keep" {
		return true
	}
	_, hook := ann["helm.sh/hook"]
	return hook || crdsFile(o.Template) || createdNamespace(o)
}

// createdNamespace reports whether o is the release Namespace of install.createNamespace
// (with targetNamespace), rendered without a template (render/helm namespaceDoc). Helm
// creates it in Install.RunWithContext apart from rel.Manifest (helm pkg/action/install.go,
// the i.CreateNamespace block), so neither an upgrade (Client.Update diffs manifests) nor
// the uninstall (Uninstall.deleteRelease splits rel.Manifest) ever deletes it.
func createdNamespace(o *graph.Object) bool {
	return o.HelmRelease != "" && o.Template == "" && o.ID.Group == "" && o.ID.Kind == "Namespace"
}

// crdsFile reports whether template, a chart file path ("app/crds/x.yaml",
// "app/charts/sub/crds/x.yaml"; Helm's CRD.Filename), is in a crds/ folder of the chart
// or of a subchart, not in templates/.
func crdsFile(template string) bool {
	segs := strings.Split(template, "/")
	for i := 1; i < len(segs)-1; i++ {
		switch segs[i] {
		case "crds":
			return true
		case "charts":
			i++ // the subchart's name; its own structure follows
		default:
			return false
		}
	}
	return false
}

// helmReleaseOf returns the HelmRelease object that Kustomization owner applies at c
// under name ("namespace/name"), or nil.
func helmReleaseOf(c *graph.Cluster, owner graph.Ref, name string) *graph.Object {
	for _, o := range c.Owners[hrID(name)] {
		if o.Owner == owner && o.HelmRelease == "" {
			return o
		}
	}
	return nil
}

// uninstallReason says why helm-controller uninstalls the release of base HelmRelease
// hr once head applies, or "" when it does not:
//   - hr is gone at head and its Kustomization garbage-collects it: the finalizer
//     uninstalls the release unless hr was suspended (controller/helmrelease_controller.go
//     reconcileDelete);
//   - its release name, release namespace or storage namespace changes: the controller
//     uninstalls the old release before it installs the new one (reconcileRelease,
//     internal/action/verify.go ReleaseTargetChanged). A change of the chart's name is
//     not detected (the chart's Chart.yaml name is not kept by the render).
func uninstallReason(hr *graph.Object, base, head *graph.Cluster) string {
	if suspended(hr) {
		return ""
	}
	now := applied(head, hr.ID)
	if len(now) == 0 {
		if protected(hr) || !KnownGone(hr.Owner, base, head) || !garbageCollects(hr.Owner, base, head) {
			return ""
		}
		if n := renameOnly(hr, base, head); n != nil {
			what, _, _, _ := identityChange(hr.Owner, base, head)
			return fmt.Sprintf("%s (%s:%d) becomes %s because %s: Flux applies the new HelmRelease and prunes the old one, so helm-controller's finalizer uninstalls release %s, and HelmRelease %s installs release %s from nothing",
				hr.ID, n.File, n.Line, n.ID, what, releaseLabel(hr), hrName(n.ID), releaseLabel(n))
		}
		return fmt.Sprintf("%s is removed from %s, which garbage-collects it, so helm-controller's finalizer uninstalls release %s", hr.ID, hr.Owner, releaseLabel(hr))
	}
	was, is := helm.ReleaseOf(hr.Body), helm.ReleaseOf(now[0].Body)
	var changed []string
	if was.Name != is.Name {
		changed = append(changed, fmt.Sprintf("release name %s → %s", was.Name, is.Name))
	}
	if was.Namespace != is.Namespace {
		changed = append(changed, fmt.Sprintf("release namespace %s → %s", was.Namespace, is.Namespace))
	}
	if was.StorageNamespace != is.StorageNamespace {
		changed = append(changed, fmt.Sprintf("storage namespace %s → %s", was.StorageNamespace, is.StorageNamespace))
	}
	if len(changed) == 0 {
		return ""
	}
	return fmt.Sprintf("the release target of %s changes (%s), so helm-controller uninstalls release %s before it installs the new one",
		hr.ID, strings.Join(changed, ", "), releaseLabel(hr))
}

// releaseLabel shows the Helm release hr manages: "namespace/name".
func releaseLabel(hr *graph.Object) string {
	r := helm.ReleaseOf(hr.Body)
	return r.Namespace + "/" + r.Name
}

func suspended(o *graph.Object) bool {
	s, _ := o.Body.Object["spec"].(map[string]any)
	b, _ := s["suspend"].(bool)
	return b
}

// HelmLeaves says why Helm leaves o, an object the chart of a HelmRelease rendered at base
// that head no longer has, in the cluster with no release managing it: the HelmRelease is
// uninstalled (uninstallReason) or upgraded and o is annotated helm.sh/resource-policy: keep
// (the uninstall reads the stored manifest, the upgrade the live object; helmKeeps), or o is
// a CRD of the chart's crds/ (applied outside the release). "" when Helm deletes it, when
// o's HelmRelease is not at base, or for a hook (its hook-delete-policy decides). The
// review lists such objects as orphaned, not removed.
func HelmLeaves(o *graph.Object, base, head *graph.Cluster) string {
	if o.HelmRelease == "" {
		return ""
	}
	hr := helmReleaseOf(base, o.Owner, o.HelmRelease)
	if hr == nil {
		return ""
	}
	if _, hook := o.Body.GetAnnotations()["helm.sh/hook"]; hook {
		return ""
	}
	uninstall := uninstallReason(hr, base, head) != ""
	if !helmKeeps(o, uninstall) {
		return ""
	}
	what := "upgrade"
	if uninstall {
		what = "uninstall"
	}
	if createdNamespace(o) {
		return fmt.Sprintf("the Namespace that install.createNamespace of HelmRelease %s created outside release %s: the %s leaves it", o.HelmRelease, releaseLabel(hr), what)
	}
	if crdsFile(o.Template) {
		return fmt.Sprintf("a CRD of the chart's crds/ (%s), which helm-controller applies outside release %s: the %s leaves it", o.Template, releaseLabel(hr), what)
	}
	return fmt.Sprintf("annotated helm.sh/resource-policy: keep, so the %s of release %s leaves it in the cluster, managed by nothing", what, releaseLabel(hr))
}

// helmDeletes says how helm-controller deletes o, an object the chart of a HelmRelease
// rendered at base that this release no longer renders at head: "uninstall" when the
// release is uninstalled (uninstallReason), "upgrade" when the HelmRelease still applies,
// reconciles (not suspended) and rendered at head, so its upgrade deletes what left the
// manifest; "" when Helm leaves it (helmKeeps, or no upgrade is known to run).
func helmDeletes(o *graph.Object, base, head *graph.Cluster) string {
	if o.HelmRelease == "" {
		return ""
	}
	hr := helmReleaseOf(base, o.Owner, o.HelmRelease)
	if hr == nil {
		return ""
	}
	if uninstallReason(hr, base, head) != "" {
		if helmKeeps(o, true) {
			return ""
		}
		return "uninstall"
	}
	if helmKeeps(o, false) {
		return ""
	}
	for _, now := range applied(head, hr.ID) {
		if suspended(now) {
			return ""
		}
		for _, rel := range head.Kustomizations[now.Owner].Releases {
			if rel.HelmRelease == hr.ID {
				return "upgrade"
			}
		}
	}
	return ""
}
