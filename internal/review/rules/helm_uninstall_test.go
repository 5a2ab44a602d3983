package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHelmUninstall: a HelmRelease removed under garbage collection, or whose release
// target changes, is uninstalled; an error when the uninstall deletes what head applies
// from another owner or a critical kind; nothing when Helm keeps it all or nothing prunes.
func TestHelmUninstall(t *testing.T) {
	tiers := func(prune bool) map[string]string {
		return map[string]string{tierFile("a"): tier("a", "./a", prune), "a/keep.yaml": configMap("default", "keep-a"),
			tierFile("b"): tier("b", "./b", true), "b/keep.yaml": configMap("default", "keep-b")}
	}
	hr := map[string]string{"a/hr.yaml": helmRelease("default", "app", "app")}
	cm := map[string]string{"templates/cm.yaml": configMap("", "cm")}
	withPVC := merge(cm, map[string]string{"templates/pvc.yaml": pvc("", "data", ""), "crds/w.yaml": crd("example.com", "Widget", "widgets", "Namespaced")})
	kept := func(m string) string { return withAnnotation(m, "helm.sh/resource-policy", "keep") }
	suggestion := []string{"`helm.sh/resource-policy: keep`", "HelmRelease default/app"}
	cases := []struct {
		name       string
		base, head map[string]string
		want       []want
	}{
		{
			name: "removed under prune: a warning",
			base: merge(tiers(true), hr, chart("app", cm)),
			head: merge(tiers(true), chart("app", cm)),
			want: []want{{Rule: "helm-uninstall", Severity: Warning, Kustomization: "flux-system/a", Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "a/hr.yaml", Line: 2,
				Msg:  []string{"HelmRelease.helm.toolkit.fluxcd.io/default/app is removed from flux-system/a, which garbage-collects it, so helm-controller's finalizer uninstalls release default/app: the uninstall deletes 1 object(s) of the release (ConfigMap/default/cm)."},
				Sugg: suggestion}},
		},
		{
			// The CRD of crds/ is not part of the release: Helm never deletes it.
			name: "removed with a PersistentVolumeClaim: an error",
			base: merge(tiers(true), hr, chart("app", withPVC)),
			head: merge(tiers(true), chart("app", withPVC)),
			want: []want{{Rule: "helm-uninstall", Severity: Error, Kustomization: "flux-system/a", Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "a/hr.yaml", Line: 2,
				Msg: []string{"deletes 2 object(s) of the release (ConfigMap/default/cm, PersistentVolumeClaim/default/data)", "It deletes PersistentVolumeClaim/default/data; under the usual Delete reclaim policy its volume and data go too."}}},
		},
		{
			// thaum-xyz/ankhmorpork#1319: a chart replaced by plain manifests of the same names.
			name: "replaced by plain manifests: an error",
			base: merge(tiers(true), hr, chart("app", cm)),
			head: merge(tiers(true), chart("app", cm), map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			want: []want{{Rule: "helm-uninstall", Severity: Error, Kustomization: "flux-system/a", Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "a/hr.yaml", Line: 2,
				Msg: []string{"Applied at head by another owner: ConfigMap/default/cm (by flux-system/a); that does not save them: the uninstall deletes each right after its owner applies it"}}},
		},
		{
			name: "release name changes: uninstall and install again",
			base: merge(tiers(true), hr, chart("app", cm)),
			head: merge(tiers(true), map[string]string{"a/hr.yaml": helmRelease("default", "app", "app", "releaseName: app2")}, chart("app", cm)),
			want: []want{{Rule: "helm-uninstall", Severity: Warning, Kustomization: "flux-system/a", Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "a/hr.yaml", Line: 12,
				Msg: []string{"the release target of HelmRelease.helm.toolkit.fluxcd.io/default/app changes (release name app → app2), so helm-controller uninstalls release default/app before it installs the new one"}}},
		},
		{
			name: "target and storage namespace change",
			base: merge(tiers(true), hr, chart("app", cm)),
			head: merge(tiers(true), map[string]string{"a/hr.yaml": helmRelease("default", "app", "app", "targetNamespace: apps", "storageNamespace: apps")}, chart("app", cm)),
			want: []want{{Rule: "helm-uninstall", Severity: Warning, Kustomization: "flux-system/a", Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "a/hr.yaml", Line: 12,
				Msg: []string{"(release name app → apps-app, release namespace default → apps, storage namespace default → apps)"}}},
		},
		{
			name: "negative: rename with helm.sh/resource-policy: keep in place",
			base: merge(tiers(true), hr, chart("app", map[string]string{"templates/cm.yaml": kept(configMap("", "cm")), "templates/pvc.yaml": kept(pvc("", "data", ""))})),
			head: merge(tiers(true), map[string]string{"a/hr.yaml": helmRelease("default", "app", "app", "releaseName: app2")},
				chart("app", map[string]string{"templates/cm.yaml": kept(configMap("", "cm")), "templates/pvc.yaml": kept(pvc("", "data", ""))})),
		},
		{
			// filterManifestsToKeep trims and lowercases the policy. Nothing is deleted: a
			// notice that names the kept orphan, never an error or a warning.
			name: "removed with helm.sh/resource-policy: ' Keep' (uninstall trims and lowercases): kept orphans",
			base: merge(tiers(true), hr, chart("app", map[string]string{"templates/cm.yaml": withAnnotation(configMap("", "cm"), "helm.sh/resource-policy", `" Keep"`)})),
			head: merge(tiers(true), chart("app", cm)),
			want: []want{{Rule: "helm-uninstall", Severity: Notice, Kustomization: "flux-system/a", Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "a/hr.yaml", Line: 2,
				Msg: []string{"HelmRelease.helm.toolkit.fluxcd.io/default/app is removed from flux-system/a, which garbage-collects it, so helm-controller's finalizer uninstalls release default/app: the uninstall deletes nothing. " +
					"Helm leaves 1 object(s) in the cluster (annotated helm.sh/resource-policy: keep: ConfigMap/default/cm): orphans that no release or Kustomization manages any more; delete them by hand when they are no longer needed."},
				Sugg: []string{"Nothing to do if the kept objects should stay in the cluster unmanaged: ConfigMap/default/cm. To have them managed again, apply them from a Kustomization or another release;"}}},
		},
		{
			name: "negative: removed from a Kustomization without prune",
			base: merge(tiers(false), hr, chart("app", withPVC)),
			head: merge(tiers(false), chart("app", withPVC)),
		},
		{
			name: "negative: removed while suspended",
			base: merge(tiers(true), map[string]string{"a/hr.yaml": helmRelease("default", "app", "app", "suspend: true")}, chart("app", withPVC)),
			head: merge(tiers(true), chart("app", withPVC)),
		},
		{
			name: "negative: removed with prune disabled on the HelmRelease",
			base: merge(tiers(true), map[string]string{"a/hr.yaml": withAnnotation(helmRelease("default", "app", "app"), "kustomize.toolkit.fluxcd.io/prune", "disabled")}, chart("app", withPVC)),
			head: merge(tiers(true), chart("app", withPVC)),
		},
		{
			name: "negative: values change only",
			base: merge(tiers(true), hr, chart("app", withPVC)),
			head: merge(tiers(true), map[string]string{"a/hr.yaml": helmRelease("default", "app", "app", "values: {a: 1}")}, chart("app", withPVC)),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderBuilt(t, tc.base, tc.head)
			checkFindings(t, changeRule(t, "helm-uninstall")(base, head, testEnv()), tc.want)
		})
	}
}

// TestHelmUninstallNotDoubled: the uninstall that deletes a replacement is helm-uninstall's
// finding only; prune-transient and destructive-prune stay silent about the release's
// objects.
func TestHelmUninstallNotDoubled(t *testing.T) {
	tiers := map[string]string{tierFile("a"): tier("a", "./a", true), "a/keep.yaml": configMap("default", "keep-a")}
	chartFiles := chart("app", map[string]string{"templates/pvc.yaml": pvc("", "data", "")})
	base := renderTree(t, merge(tiers, chartFiles, map[string]string{"a/hr.yaml": helmRelease("default", "app", "app")}))
	head := renderTree(t, merge(tiers, chartFiles, map[string]string{"a/pvc.yaml": pvc("default", "data", "")}))
	for _, id := range []string{"prune-transient", "destructive-prune"} {
		checkFindings(t, changeRule(t, id)(base, head, testEnv()), nil)
	}
	checkFindings(t, changeRule(t, "helm-uninstall")(base, head, testEnv()), []want{{Rule: "helm-uninstall", Severity: Error, Kustomization: "flux-system/a",
		Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "a/hr.yaml", Line: 2}})
}

// TestUninstallAdvice: a renamed release is adopted by helm-controller's take-ownership
// (and refused under disableTakeOwnership); a removed one is taken over by plain manifests.
func TestUninstallAdvice(t *testing.T) {
	const first = "Merge in two steps: first add the annotation `helm.sh/resource-policy: keep` to the objects that must survive " +
		"through the chart of HelmRelease apps/web (or its postRenderers) and let helm-controller upgrade the release; then merge this change. "
	for _, tc := range []struct {
		name    string
		renamed bool
		want    string
	}{
		{"renamed release", true, first + "Helm leaves the kept objects annotated with the old release (meta.helm.sh/release-name, meta.helm.sh/release-namespace); " +
			"helm-controller's install of the new release takes ownership of them, unless spec.install.disableTakeOwnership is true: then Helm refuses them " +
			"('invalid ownership metadata') and, before the second step, their two annotations must be set to the new release name and storage namespace " +
			"(or disableTakeOwnership removed). Or, if the objects should go, nothing to do."},
		{"removed release", false, first + "Helm leaves the kept objects, and plain manifests of the same objects take them over on kustomize-controller's apply (it checks no Helm annotation; " +
			"remove the `helm.sh/resource-policy` annotation and the meta.helm.sh annotations from the manifests' objects if they are copied from the chart). " +
			"Or, if the objects should go, nothing to do."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, uninstallAdvice("apps/web", tc.renamed)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestCreatedNamespaceOutsideRelease: the Namespace of install.createNamespace (with
// targetNamespace) is created by Helm outside the release manifest (helm
// pkg/action/install.go Install.RunWithContext), so neither the uninstall nor an upgrade
// deletes it: removing the HelmRelease is a warning naming only the manifest's objects,
// and a Kustomization taking the Namespace over is no prune-transient.
func TestCreatedNamespaceOutsideRelease(t *testing.T) {
	tiers := map[string]string{tierFile("a"): tier("a", "./a", true), "a/keep.yaml": configMap("default", "keep-a")}
	cm := chart("app", map[string]string{"templates/cm.yaml": configMap("", "cm")})
	hr := map[string]string{"a/hr.yaml": helmRelease("default", "app", "app", "targetNamespace: app-system", "install: {createNamespace: true}")}
	t.Run("removed: a warning, the Namespace stays", func(t *testing.T) {
		base, head := renderTree(t, merge(tiers, hr, cm)), renderTree(t, merge(tiers, cm))
		checkFindings(t, changeRule(t, "helm-uninstall")(base, head, testEnv()), []want{{Rule: "helm-uninstall", Severity: Warning, Kustomization: "flux-system/a",
			Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "a/hr.yaml", Line: 2,
			Msg: []string{"HelmRelease.helm.toolkit.fluxcd.io/default/app is removed from flux-system/a, which garbage-collects it, so helm-controller's finalizer uninstalls release app-system/app-system-app: " +
				"the uninstall deletes 1 object(s) of the release (ConfigMap/app-system/cm). " +
				"Namespace/app-system stays: install.createNamespace created it outside the release manifest, and Helm's uninstall never deletes it."}}})
	})
	t.Run("negative: a Namespace manifest takes it over", func(t *testing.T) {
		base := renderTree(t, merge(tiers, hr, cm))
		head := renderTree(t, merge(tiers, hr, cm, map[string]string{"a/ns.yaml": namespaceObj("app-system")}))
		for _, id := range []string{"prune-transient", "helm-uninstall"} {
			checkFindings(t, changeRule(t, id)(base, head, testEnv()), nil)
		}
	})
}

// TestUninstallKeptCRD: removing a HelmRelease whose CRD Helm leaves (crds/, or annotated
// helm.sh/resource-policy: keep) says the CRD stays in running clusters and that a new
// cluster lacks it; the suggestion does not ask for the annotation already there.
func TestUninstallKeptCRD(t *testing.T) {
	tiers := map[string]string{tierFile("a"): tier("a", "./a", true), "a/keep.yaml": configMap("default", "keep-a")}
	hr := map[string]string{"a/hr.yaml": helmRelease("default", "app", "app")}
	for _, tc := range []struct {
		name, file, crd, why string
	}{
		{"templated CRD with keep", "templates/crd.yaml", withAnnotation(crd("example.com", "Widget", "widgets", "Namespaced"), "helm.sh/resource-policy", "keep"), "annotated helm.sh/resource-policy: keep"},
		{"CRD of crds/", "crds/crd.yaml", crd("example.com", "Widget", "widgets", "Namespaced"), "the chart's crds/, which the uninstall never deletes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := chart("app", map[string]string{"templates/cm.yaml": configMap("", "cm"), tc.file: tc.crd})
			base, head := renderTree(t, merge(tiers, hr, files)), renderTree(t, merge(tiers, files))
			checkFindings(t, changeRule(t, "helm-uninstall")(base, head, testEnv()), []want{{Rule: "helm-uninstall", Severity: Warning, Kustomization: "flux-system/a",
				Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "a/hr.yaml", Line: 2,
				Msg: []string{"HelmRelease.helm.toolkit.fluxcd.io/default/app is removed from flux-system/a, which garbage-collects it, so helm-controller's finalizer uninstalls release default/app: " +
					"the uninstall deletes 1 object(s) of the release (ConfigMap/default/cm). " +
					"Helm leaves CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com (" + tc.why + "), and with it every custom resource of its kind that the release does not render itself: they stay in the clusters that run the release, managed by nothing. " +
					"Do not delete a kept CRD by hand: deleting a CRD makes the API server delete every custom resource of its kind. A cluster bootstrapped from this commit never gets it: nothing at head installs it."},
				Sugg: []string{"Nothing to add for the kept objects, Helm already leaves them: CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com. " +
					"If the deleted objects (ConfigMap/default/cm) should go, nothing to do; to keep them too, first add the annotation `helm.sh/resource-policy: keep` to them through the chart of HelmRelease default/app (or its postRenderers) and let helm-controller upgrade the release, then merge this change. " +
					"For new clusters, install the kept CRDs from a Kustomization or another release (plain manifests take the kept objects over on kustomize-controller's apply)."}}})
		})
	}
}

// TestUninstallRenamedKeeps: a renamed release is uninstalled, but Helm leaves the CRDs of the
// chart's crds/ (never in the release manifest) and the objects annotated
// helm.sh/resource-policy: keep, and the custom resources of those CRDs with them; the
// finding says so, by reason, and says nothing of it when the chart has neither.
func TestUninstallRenamedKeeps(t *testing.T) {
	tiers := map[string]string{tierFile("a"): tier("a", "./a", true), "a/keep.yaml": configMap("default", "keep-a")}
	base := map[string]string{"a/hr.yaml": helmRelease("default", "app", "app")}
	head := map[string]string{"a/hr.yaml": helmRelease("default", "app", "app", "releaseName: app2")}
	cm := map[string]string{"templates/cm.yaml": configMap("", "cm")}
	keeps := merge(cm, map[string]string{
		"crds/w.yaml":         crd("example.com", "Widget", "widgets", "Namespaced"),
		"templates/kept.yaml": withAnnotation(configMap("", "kept"), "helm.sh/resource-policy", "keep"),
	})
	const renamed = "the release target of HelmRelease.helm.toolkit.fluxcd.io/default/app changes (release name app → app2), so helm-controller uninstalls release default/app before it installs the new one: " +
		"the uninstall deletes 1 object(s) of the release (ConfigMap/default/cm)"
	for _, tc := range []struct {
		name  string
		chart map[string]string
		msg   string
	}{
		{"crds/ and keep", keeps, renamed + ". Helm leaves 2 object(s) in the cluster (CRDs of the chart's crds/, which the uninstall never deletes: CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com; " +
			"annotated helm.sh/resource-policy: keep: ConfigMap/default/kept), and the custom resources of those CRDs with them, except the ones the release renders; " +
			"the release at head finds them in place."},
		{"keep only: no word of CRDs", merge(cm, map[string]string{"templates/kept.yaml": withAnnotation(configMap("", "kept"), "helm.sh/resource-policy", "keep")}),
			renamed + ". Helm leaves 1 object(s) in the cluster (annotated helm.sh/resource-policy: keep: ConfigMap/default/kept); the release at head finds them in place."},
		{"negative: neither", cm, renamed + "."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, h := renderBuilt(t, merge(tiers, base, chart("app", tc.chart)), merge(tiers, head, chart("app", tc.chart)))
			got := changeRule(t, "helm-uninstall")(b, h, testEnv())
			checkFindings(t, got, []want{{Rule: "helm-uninstall", Severity: Warning, Kustomization: "flux-system/a",
				Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "a/hr.yaml", Line: 12}})
			if got[0].Message != tc.msg {
				t.Errorf("message:\n got %q\nwant %q", got[0].Message, tc.msg)
			}
		})
	}
}

// TestUninstallOnlyKeptCRD: when Helm leaves everything of a removed release and that is a
// CRD, the finding says the CRD stays with its custom resources and never advises deleting
// it; a kept ConfigMap beside it may still be deleted by hand.
func TestUninstallOnlyKeptCRD(t *testing.T) {
	tiers := map[string]string{tierFile("a"): tier("a", "./a", true), "a/keep.yaml": configMap("default", "keep-a")}
	hr := map[string]string{"a/hr.yaml": helmRelease("default", "app", "app")}
	const removed = "HelmRelease.helm.toolkit.fluxcd.io/default/app is removed from flux-system/a, which garbage-collects it, so helm-controller's finalizer uninstalls release default/app: the uninstall deletes nothing. "
	const crdPart = "Helm leaves CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com (the chart's crds/, which the uninstall never deletes), and with it every custom resource of its kind that the release does not render itself: they stay in the clusters that run the release, managed by nothing. " +
		"Do not delete a kept CRD by hand: deleting a CRD makes the API server delete every custom resource of its kind. A cluster bootstrapped from this commit never gets it: nothing at head installs it."
	const crdSugg = "Nothing to do for the kept CRDs (CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com): they stay with the custom resources of their kinds. Do not delete a kept CRD by hand: deleting a CRD makes the API server delete every custom resource of its kind. " +
		"To have them managed again, or installed on new clusters, apply them from a Kustomization or another release."
	for _, tc := range []struct {
		name      string
		files     map[string]string
		msg, sugg string
	}{
		{"a CRD of crds/ only", map[string]string{"crds/crd.yaml": crd("example.com", "Widget", "widgets", "Namespaced")}, removed + crdPart, crdSugg},
		{"a CRD and a kept ConfigMap", map[string]string{"crds/crd.yaml": crd("example.com", "Widget", "widgets", "Namespaced"),
			"templates/cm.yaml": withAnnotation(configMap("", "cm"), "helm.sh/resource-policy", "keep")},
			removed + "Helm leaves 1 object(s) in the cluster (annotated helm.sh/resource-policy: keep: ConfigMap/default/cm): orphans that no release or Kustomization manages any more; delete them by hand when they are no longer needed. " + crdPart,
			"Nothing to do if the kept objects should stay in the cluster unmanaged: ConfigMap/default/cm. To have them managed again, apply them from a Kustomization or another release; to remove them, delete them by hand (no controller will). " + crdSugg},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := chart("app", tc.files)
			base, head := renderTree(t, merge(tiers, hr, files)), renderTree(t, merge(tiers, files))
			got := changeRule(t, "helm-uninstall")(base, head, testEnv())
			checkFindings(t, got, []want{{Rule: "helm-uninstall", Severity: Notice, Kustomization: "flux-system/a",
				Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "a/hr.yaml", Line: 2}})
			if got[0].Message != tc.msg {
				t.Errorf("message:\n got %q\nwant %q", got[0].Message, tc.msg)
			}
			if got[0].Suggestion != tc.sugg {
				t.Errorf("suggestion:\n got %q\nwant %q", got[0].Suggestion, tc.sugg)
			}
		})
	}
}
