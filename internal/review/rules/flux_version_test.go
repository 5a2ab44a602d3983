package rules

import "testing"

// TestUndefinedVariableFluxVersion: the severity of undefined-variable follows the Flux
// version the repository states for the cluster (a FluxInstance's distribution.version, the
// header of gotk-components.yaml, the kustomize-controller image): before 2.9 the variable
// becomes empty (a warning), from 2.9 on the reconcile fails (an error); unknown keeps the
// default; .tiergate.yaml strictSubstitution wins over the version.
func TestUndefinedVariableFluxVersion(t *testing.T) {
	withComponents := func(components string) map[string]string {
		return map[string]string{
			tierFile("apps"): tier("apps", "./apps", true, substitute("Y", "1")...),
			"apps/cm.yaml":   configMap("default", "cm", "data:", "  y: ${Y}", "  x: ${X}"),
			"clusters/dev/flux-system/kustomization.yaml":   "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - gotk-components.yaml\n  - gotk-sync.yaml\n",
			"clusters/dev/flux-system/gotk-components.yaml": components,
		}
	}
	ns := "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: flux-system\n"
	kc := func(tag string) string {
		return ns + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: kustomize-controller\n  namespace: flux-system\nspec:\n  template:\n    spec:\n      containers:\n        - name: manager\n          image: ghcr.io/fluxcd/kustomize-controller:" + tag + "\n"
	}
	instance := func(version string) map[string]string {
		files := withComponents(ns)
		files["clusters/dev/flux-instance.yaml"] = "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  distribution:\n    version: \"" + version + "\"\n  sync:\n    kind: GitRepository\n    path: clusters/dev\n"
		return files
	}
	msg := "${X} in ConfigMap/default/cm is defined by neither postBuild.substitute nor substituteFrom of flux-system/apps: "
	cases := []struct {
		name       string
		files      map[string]string
		configured bool
		strict     bool
		sev        Severity
		msg        string
	}{
		{"gotk-components header 2.6", withComponents("---\n# Flux Version: v2.6.0 (minimal)\n" + ns), false, true, Warning,
			msg + "cluster dev runs Flux v2.6.0 (the header of clusters/dev/flux-system/gotk-components.yaml), before Flux 2.9 made strict substitution the default: the reconcile goes on and the variable becomes an empty string."},
		{"gotk-components header 2.9", withComponents("# Flux Version: v2.9.1\n" + ns), false, true, Error,
			msg + "cluster dev runs Flux v2.9.1 (the header of clusters/dev/flux-system/gotk-components.yaml), where strict substitution (on by default since Flux 2.9) fails the reconcile."},
		{"kustomize-controller image 1.6", withComponents(kc("v1.6.0")), false, true, Warning,
			msg + "cluster dev runs kustomize-controller v1.6.0 (the image of Deployment flux-system/kustomize-controller, clusters/dev/flux-system/gotk-components.yaml:7), before Flux 2.9 made strict substitution the default: the reconcile goes on and the variable becomes an empty string."},
		{"kustomize-controller image 1.9", withComponents(kc("v1.9.0")), false, true, Error,
			msg + "cluster dev runs kustomize-controller v1.9.0 (the image of Deployment flux-system/kustomize-controller, clusters/dev/flux-system/gotk-components.yaml:7), where strict substitution (on by default since Flux 2.9) fails the reconcile."},
		{"FluxInstance range below 2.9", instance("2.6.x"), false, true, Warning,
			msg + "cluster dev runs Flux 2.6.x (spec.distribution.version of FluxInstance flux-system/flux, clusters/dev/flux-instance.yaml:2), before Flux 2.9 made strict substitution the default: the reconcile goes on and the variable becomes an empty string."},
		{"FluxInstance range reaching 2.9", instance("2.x"), false, true, Error,
			msg + "cluster dev runs Flux 2.x (spec.distribution.version of FluxInstance flux-system/flux, clusters/dev/flux-instance.yaml:2), where strict substitution (on by default since Flux 2.9) fails the reconcile."},
		{"unknown version keeps the default", withComponents(ns), false, true, Error,
			msg + "strict substitution (Flux ≥ 2.9) fails the reconcile; older Flux substitutes an empty string."},
		{"a version line after the first document is no header", withComponents(ns + "# Flux Version: v2.6.0\n"), false, true, Error,
			msg + "strict substitution (Flux ≥ 2.9) fails the reconcile; older Flux substitutes an empty string."},
		{"configured strict wins over 2.6", withComponents("# Flux Version: v2.6.0\n" + ns), true, true, Error,
			msg + "strict substitution (Flux ≥ 2.9) fails the reconcile; older Flux substitutes an empty string."},
		{"configured lenient wins over 2.9", withComponents("# Flux Version: v2.9.0\n" + ns), true, false, Warning,
			msg + "strict substitution (Flux ≥ 2.9) fails the reconcile; older Flux substitutes an empty string."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, tc.files)
			env := &Env{Catalog: NewCatalog(nil), Strict: tc.strict, StrictConfigured: tc.configured}
			checkFindings(t, stateRule(t, "undefined-variable")(c, nil, env), []want{{
				Rule: "undefined-variable", Severity: tc.sev, Kustomization: "flux-system/apps",
				Object: "ConfigMap/default/cm", File: "apps/cm.yaml", Line: 8, Msg: []string{tc.msg},
			}})
		})
	}
}
