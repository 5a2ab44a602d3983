package rules

import (
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestUnservedFluxVersion: a Flux object whose apiVersion its CRD does not serve fails the
// dry-run ('no matches for kind'): missing-crd, at the apiVersion line, naming the served
// versions; it is not built as a Kustomization (or rendered as a HelmRelease). v1beta2,
// which Flux 2.7 still serves, is accepted unless the cluster says otherwise.
func TestUnservedFluxVersion(t *testing.T) {
	withVersion := func(doc, version string) string {
		return strings.Replace(doc, "apiVersion: kustomize.toolkit.fluxcd.io/v1\n", "apiVersion: kustomize.toolkit.fluxcd.io/"+version+"\n", 1)
	}
	base := map[string]string{tierFile("apps"): tier("apps", "./apps", true), "apps/cm.yaml": configMap("default", "cm")}
	const history = "Flux serves v1 (v1beta2 until Flux 2.7, v1beta1 until Flux 2.6)"
	for _, tc := range []struct {
		name    string
		files   map[string]string
		want    []want
		msg     string
		sugg    string
		built   bool // flux-system/odd is a Kustomization of the graph
		release bool // HelmRelease default/app is rendered
	}{
		{name: "a version no Flux serves: not built", files: merge(base, map[string]string{tierFile("odd"): withVersion(tier("odd", "./odd", true), "g"), "odd/cm.yaml": configMap("default", "odd")}),
			want: []want{{Rule: "missing-crd", Severity: Error, Kustomization: "flux-system/flux-system", Object: "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/odd", File: "clusters/dev/odd.yaml", Line: 1}},
			msg: "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/odd has apiVersion kustomize.toolkit.fluxcd.io/g, a version the Kustomization CRD of cluster dev does not serve: " + history + ". " +
				"So the dry-run of flux-system/flux-system fails with 'no matches for kind \"Kustomization\" in version \"kustomize.toolkit.fluxcd.io/g\"' on every reconcile and applies nothing, and tiergate does not review it as a Kustomization.",
			sugg: "Set `apiVersion: kustomize.toolkit.fluxcd.io/v1` on Kustomization.kustomize.toolkit.fluxcd.io/flux-system/odd (clusters/dev/odd.yaml:1), and fix its spec for that version where it differs."},
		{name: "v1beta1, removed in Flux 2.7: not built", files: merge(base, map[string]string{tierFile("odd"): withVersion(tier("odd", "./odd", true), "v1beta1"), "odd/cm.yaml": configMap("default", "odd")}),
			want: []want{{Rule: "missing-crd", Severity: Error, Kustomization: "flux-system/flux-system", Object: "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/odd", File: "clusters/dev/odd.yaml", Line: 1}}},
		{name: "negative: v1beta2 with no Flux version stated is built", files: merge(base, map[string]string{tierFile("odd"): withVersion(tier("odd", "./odd", true), "v1beta2"), "odd/cm.yaml": configMap("default", "odd")}),
			built: true},
		{name: "v1beta2 where the graph's Flux CRD serves v1 only", files: merge(base, map[string]string{tierFile("odd"): withVersion(tier("odd", "./odd", true), "v1beta2"), "odd/cm.yaml": configMap("default", "odd"),
			"apps/crd.yaml": crd("kustomize.toolkit.fluxcd.io", "Kustomization", "kustomizations", "Namespaced")}),
			want:  []want{{Rule: "missing-crd", Severity: Error, Kustomization: "flux-system/flux-system", Object: "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/odd", File: "clusters/dev/odd.yaml", Line: 1}},
			msg:   "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/odd has apiVersion kustomize.toolkit.fluxcd.io/v1beta2, a version the Kustomization CRD of cluster dev does not serve: its CRD in the graph (apps/crd.yaml:2) serves v1. So the dry-run of flux-system/flux-system fails with 'no matches for kind \"Kustomization\" in version \"kustomize.toolkit.fluxcd.io/v1beta2\"' on every reconcile and applies nothing, and tiergate still reviews it as the Kustomization Flux 2.7 served, which this cluster does not apply.",
			built: true},
		{name: "v1beta2 where the repository states Flux 2.8", files: merge(base, map[string]string{tierFile("odd"): withVersion(tier("odd", "./odd", true), "v1beta2"), "odd/cm.yaml": configMap("default", "odd"),
			"apps/gotk-components.yaml": "# Flux Version: v2.8.0\n" + configMap("default", "gotk")}),
			want:  []want{{Rule: "missing-crd", Severity: Error, Kustomization: "flux-system/flux-system", Object: "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/odd", File: "clusters/dev/odd.yaml", Line: 1}},
			msg:   "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/odd has apiVersion kustomize.toolkit.fluxcd.io/v1beta2, a version the Kustomization CRD of cluster dev does not serve: cluster dev runs Flux v2.8.0 (the header of apps/gotk-components.yaml), whose CRD serves v1; " + history + ". So the dry-run of flux-system/flux-system fails with 'no matches for kind \"Kustomization\" in version \"kustomize.toolkit.fluxcd.io/v1beta2\"' on every reconcile and applies nothing, and tiergate still reviews it as the Kustomization Flux 2.7 served, which this cluster does not apply.",
			built: true},
		{name: "negative: v1beta2 where the repository states Flux 2.7", files: merge(base, map[string]string{tierFile("odd"): withVersion(tier("odd", "./odd", true), "v1beta2"), "odd/cm.yaml": configMap("default", "odd"),
			"apps/gotk-components.yaml": "# Flux Version: v2.7.3\n" + configMap("default", "gotk")}),
			built: true},
		{name: "a HelmRelease v2beta1: not rendered", files: merge(base, appChart, map[string]string{"apps/hr.yaml": strings.Replace(helmRelease("default", "app", "app"), "helm.toolkit.fluxcd.io/v2\n", "helm.toolkit.fluxcd.io/v2beta1\n", 1)}),
			want: []want{{Rule: "missing-crd", Severity: Error, Kustomization: "flux-system/apps", Object: "HelmRelease.helm.toolkit.fluxcd.io/default/app", File: "apps/hr.yaml", Line: 1}},
			msg: "HelmRelease.helm.toolkit.fluxcd.io/default/app has apiVersion helm.toolkit.fluxcd.io/v2beta1, a version the HelmRelease CRD of cluster dev does not serve: Flux serves v2 (v2beta2 until Flux 2.7, v2beta1 until Flux 2.6). " +
				"So the dry-run of flux-system/apps fails with 'no matches for kind \"HelmRelease\" in version \"helm.toolkit.fluxcd.io/v2beta1\"' on every reconcile and applies nothing, and tiergate does not review it as a HelmRelease."},
		{name: "a GitRepository v1beta1", files: merge(base, map[string]string{"apps/repo.yaml": obj("source.toolkit.fluxcd.io/v1beta1", "GitRepository", "default", "repo", "spec:", "  interval: 1m", "  url: https://git.example.invalid/x.git")}),
			want: []want{{Rule: "missing-crd", Severity: Error, Kustomization: "flux-system/apps", Object: "GitRepository.source.toolkit.fluxcd.io/default/repo", File: "apps/repo.yaml", Line: 1}},
			sugg: "Set `apiVersion: source.toolkit.fluxcd.io/v1` on GitRepository.source.toolkit.fluxcd.io/default/repo (apps/repo.yaml:1), and fix its spec for that version where it differs."},
		{name: "negative: a HelmRelease v2 is rendered", files: merge(base, appChart, map[string]string{"apps/hr.yaml": helmRelease("default", "app", "app")}), release: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := renderTree(t, tc.files)
			got := stateRule(t, "missing-crd")(c, nil, testEnv())
			checkFindings(t, got, tc.want)
			if tc.msg != "" && got[0].Message != tc.msg {
				t.Errorf("message:\n got %q\nwant %q", got[0].Message, tc.msg)
			}
			if tc.sugg != "" && got[0].Suggestion != tc.sugg {
				t.Errorf("suggestion:\n got %q\nwant %q", got[0].Suggestion, tc.sugg)
			}
			if _, built := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "odd"}]; built != tc.built {
				t.Errorf("flux-system/odd built = %v, want %v", built, tc.built)
			}
			rendered := false
			for _, ks := range c.Kustomizations {
				rendered = rendered || len(ks.Releases) > 0
			}
			if rendered != tc.release {
				t.Errorf("a release rendered = %v, want %v", rendered, tc.release)
			}
		})
	}
}

// TestUnservedFluxVersionFailsParent: the parent of a Kustomization whose apiVersion is not
// served fails its apply ('no matches for kind'), so it prunes nothing: the child's objects,
// no longer rendered, are no destructive-prune, and render-error leaves the one cause to
// missing-crd.
func TestUnservedFluxVersionFailsParent(t *testing.T) {
	tree := func(version string) map[string]string {
		return map[string]string{
			tierFile("apps"): strings.Replace(tier("apps", "./apps", true), "kustomize.toolkit.fluxcd.io/v1\n", "kustomize.toolkit.fluxcd.io/"+version+"\n", 1),
			"apps/pvc.yaml":  pvc("default", "data", ""),
		}
	}
	base, head := renderTree(t, tree("v1")), renderTree(t, tree("g"))
	root := head.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "flux-system"}]
	if root.Err == nil || root.Err.Rejected != 1 || root.Err.Unserved != 1 {
		t.Fatalf("root error = %+v, want one rejected, unserved object", root.Err)
	}
	const msg = "the API server rejects Kustomization flux-system/apps: apiVersion kustomize.toolkit.fluxcd.io/g is not served, no matches for kind (clusters/dev/apps.yaml:2)"
	if root.Err.Message != msg {
		t.Errorf("root error message:\n got %q\nwant %q", root.Err.Message, msg)
	}
	checkFindings(t, changeRule(t, "destructive-prune")(base, head, testEnv()), nil)
	checkFindings(t, stateRule(t, "render-error")(head, base, testEnv()), nil)
	checkFindings(t, stateRule(t, "missing-crd")(head, base, testEnv()), []want{{Rule: "missing-crd", Severity: Error, Kustomization: "flux-system/flux-system",
		Object: "Kustomization.kustomize.toolkit.fluxcd.io/flux-system/apps", File: "clusters/dev/apps.yaml", Line: 1}})
}
