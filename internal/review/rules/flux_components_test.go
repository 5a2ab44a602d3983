package rules

import (
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestFluxInstanceComponents: an image kind on a cluster whose FluxInstance lists the
// default components (or none) is missing-crd, naming the component to add; the listed
// image controllers, a bootstrap's gotk-components with the image CRDs and HelmReleases
// under the default set are not.
func TestFluxInstanceComponents(t *testing.T) {
	got := map[string][]Finding{}
	for _, p := range scenarioPairs(t, "flux-instance-components") {
		got[p.Head.Name] = missingCRD(p.Head, p.Base, &Env{})
	}
	for _, c := range []string{"staging", "edge"} {
		if len(got[c]) != 0 {
			t.Errorf("cluster %s: %+v, want none", c, got[c])
		}
	}
	if len(got["production"]) != 3 || len(got["dev"]) != 2 {
		t.Fatalf("production %d, dev %d findings, want 3 and 2: %+v", len(got["production"]), len(got["dev"]), got)
	}
	want := "ImageUpdateAutomation.image.toolkit.fluxcd.io/flux-system/web is of kind ImageUpdateAutomation.image.toolkit.fluxcd.io, served by image-automation-controller, " +
		"which cluster production's FluxInstance flux-system/flux (clusters/production/flux-system/flux-instance.yaml:10) does not install: " +
		"its spec.components lists source-controller, kustomize-controller, helm-controller and notification-controller, and flux-operator installs only those controllers and their CRDs; " +
		"the dry-run of flux-system/apps fails with 'no matches for kind \"ImageUpdateAutomation\" in version \"image.toolkit.fluxcd.io/v1beta2\"' on every reconcile and applies nothing."
	f := got["production"][0]
	if f.Rule != "missing-crd" || f.Severity != Error || f.File != "apps/production/automation.yaml" || f.Line != 2 || f.Message != want {
		t.Errorf("production: %+v\nwant message %s", f, want)
	}
	wantSug := "Add image-automation-controller to spec.components of FluxInstance flux-system/flux (clusters/production/flux-system/flux-instance.yaml:10), or remove ImageUpdateAutomation.image.toolkit.fluxcd.io/flux-system/web from apps/production/automation.yaml:2."
	if f.Suggestion != wantSug {
		t.Errorf("suggestion %q\nwant %q", f.Suggestion, wantSug)
	}
	want = "ImagePolicy.image.toolkit.fluxcd.io/flux-system/web is of kind ImagePolicy.image.toolkit.fluxcd.io, served by image-reflector-controller, " +
		"which cluster dev's FluxInstance flux-system/flux (clusters/dev/flux-system/flux-instance.yaml:2) does not install: " +
		"it has no spec.components, which is the default set source-controller, kustomize-controller, helm-controller and notification-controller, and flux-operator installs only those controllers and their CRDs; " +
		"the dry-run of flux-system/apps fails with 'no matches for kind \"ImagePolicy\" in version \"image.toolkit.fluxcd.io/v1beta2\"' on every reconcile and applies nothing."
	if f := got["dev"][1]; f.Line != 11 || f.Message != want {
		t.Errorf("dev: %+v\nwant message %s", f, want)
	}
}

// TestFluxComponentRemoved: dropping helm-controller from spec.components with two
// HelmReleases left is one error at the components line naming both, and missing-crd is
// silent on them; the reverse change (adding it back) and an unchanged list are not reported.
func TestFluxComponentRemoved(t *testing.T) {
	pairs := scenarioPairs(t, "flux-instance-drop-helm-controller")
	if len(pairs) != 1 || pairs[0].Base == nil || pairs[0].Head == nil {
		t.Fatalf("pairs %+v", pairs)
	}
	base, head := pairs[0].Base, pairs[0].Head
	got := fluxComponentRemoved(base, head, nil)
	want := "FluxInstance flux-system/flux no longer installs helm-controller (its spec.components lists source-controller, kustomize-controller and notification-controller), " +
		"yet cluster production still has 2 objects of the kinds it serves: HelmRelease.helm.toolkit.fluxcd.io/default/api, HelmRelease.helm.toolkit.fluxcd.io/default/web. " +
		"flux-operator garbage-collects what it applied for helm-controller, the Deployment and its CRDs (only objects annotated fluxcd.controlplane.io/prune: disabled are kept); " +
		"deleting a CRD deletes all its objects, and each then waits on the finalizer of a controller that no longer runs: they are never reconciled again " +
		"(left deleting, or, where helm-controller still runs when the deletion reaches them, finalized as on any deletion: a HelmRelease uninstalled, a Kustomization's inventory pruned), " +
		"and the Kustomizations that apply them fail on the kind from then on."
	if len(got) != 1 || got[0].Rule != "flux-component-removed" || got[0].Severity != Error || got[0].Cluster != "production" ||
		got[0].File != "clusters/production/flux-system/flux-instance.yaml" || got[0].Line != 10 || got[0].Message != want {
		t.Fatalf("findings %+v\nwant one error at flux-instance.yaml:10:\n%s", got, want)
	}
	if f := missingCRD(head, base, &Env{}); len(f) != 0 {
		t.Errorf("missing-crd beside flux-component-removed: %+v", f)
	}
	if f := fluxComponentRemoved(head, base, nil); len(f) != 0 {
		t.Errorf("adding helm-controller back reported: %+v", f)
	}
	if f := fluxComponentRemoved(base, base, nil); len(f) != 0 {
		t.Errorf("unchanged components reported: %+v", f)
	}
}

// TestFluxInstanceComponentsEdges: two components dropped at once are two findings (keys
// differ); an unrendered chart in the cluster does not soften missing-crd to a notice; a
// spec.components that is not a list of names (a substitution variable) leaves the
// installed set unknown, so nothing is reported.
func TestFluxInstanceComponentsEdges(t *testing.T) {
	instance := func(components ...string) string {
		rest := []string{"spec:", "  distribution: {version: 2.6.x, registry: ghcr.io/fluxcd}"}
		if len(components) > 0 {
			rest = append(rest, "  components:")
			for _, c := range components {
				rest = append(rest, "    - "+c)
			}
		}
		return obj("fluxcd.controlplane.io/v1", "FluxInstance", "flux-system", "flux", rest...)
	}
	hr := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "apps", "podinfo",
		"spec:", "  chart:", "    spec:", "      chart: podinfo", "      sourceRef: {kind: HelmRepository, name: podinfo}", "  interval: 10m")
	policy := obj("image.toolkit.fluxcd.io/v1beta2", "ImagePolicy", "apps", "web", "spec: {}")
	tree := func(inst string) *graph.Cluster {
		return renderTree(t, map[string]string{tierFile("apps"): tier("apps", "./apps", true), "apps/hr.yaml": hr, "apps/policy.yaml": policy,
			"clusters/dev/flux-instance.yaml": inst})
	}
	base := tree(instance("source-controller", "kustomize-controller", "helm-controller", "notification-controller"))
	head := tree(instance("source-controller", "notification-controller"))
	got := fluxComponentRemoved(base, head, nil)
	if len(got) != 2 || got[0].Key() == got[1].Key() || !strings.Contains(got[0].Message, "no longer installs kustomize-controller") ||
		!strings.Contains(got[1].Message, "no longer installs helm-controller") || !strings.Contains(got[1].Message, "1 object of the kinds it serves: HelmRelease.helm.toolkit.fluxcd.io/apps/podinfo.") {
		t.Errorf("two components dropped: %+v", got)
	}
	env := &Env{Catalog: NewCatalog(nil, config.Preinstalled{})}
	f := missingCRD(base, nil, env)
	if len(f) != 1 || f[0].Severity != Error || f[0].File != "apps/policy.yaml" || !strings.Contains(f[0].Message, "served by image-reflector-controller") {
		t.Errorf("ImagePolicy beside an unrendered chart: %+v, want one error", f)
	}
	if f := missingCRD(tree(instance("${flux_components}")), nil, env); len(f) != 0 {
		t.Errorf("components not a list of names: %+v, want none", f)
	}
}
