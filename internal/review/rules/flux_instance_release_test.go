package rules

import (
	"slices"
	"testing"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// fluxInstanceRelease is a flux-instance HelmRelease whose values set instance.components
// (line 12) and instance.distribution.version, with kind: on line 2.
const fluxInstanceRelease = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: flux-instance
  namespace: flux-system
spec:
  interval: 1h
  chartRef: {kind: OCIRepository, name: flux-instance}
  values:
    instance:
      distribution: {version: 2.6.x}
      components:
        - source-controller
        - kustomize-controller
`

// TestFluxInstanceOfHelmRelease: a flux-instance HelmRelease (its chart not rendered) is
// read as the FluxInstance its chart renders: its values' components decide what is
// installed (no helm-controller, so the HelmReleases, its own and apps', are missing-crd,
// pointing at the values' components line) and its distribution.version the Flux version (2.6.x: no strict
// substitution).
func TestFluxInstanceOfHelmRelease(t *testing.T) {
	hr := obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", "apps", "podinfo",
		"spec:", "  chart:", "    spec:", "      chart: podinfo", "      sourceRef: {kind: HelmRepository, name: podinfo}", "  interval: 10m")
	c := renderTree(t, map[string]string{tierFile("apps"): tier("apps", "./apps", true), "apps/hr.yaml": hr,
		"clusters/dev/flux-instance.yaml": fluxInstanceRelease})
	fi := clusterFluxInstance(c)
	if fi == nil {
		t.Fatal("no FluxInstance read from the flux-instance HelmRelease")
	}
	if fi.obj.ID != (graph.ObjectID{Group: "fluxcd.controlplane.io", Kind: "FluxInstance", Namespace: "flux-system", Name: "flux"}) ||
		!slices.Equal(fi.components, []string{"source-controller", "kustomize-controller"}) || fi.line(c) != 12 ||
		fi.label(c) != "FluxInstance flux-system/flux of HelmRelease flux-system/flux-instance (clusters/dev/flux-instance.yaml:12)" {
		t.Errorf("instance %+v %v line %d label %q", fi.obj.ID, fi.components, fi.line(c), fi.label(c))
	}
	v, ok := clusterFluxVersion(c)
	if !ok || v.Strict || v.Text != "2.6.x" ||
		v.From != "instance.distribution.version of FluxInstance flux-system/flux of HelmRelease flux-system/flux-instance, clusters/dev/flux-instance.yaml:2" {
		t.Errorf("version %+v", v)
	}
	f := missingCRD(c, nil, &Env{Catalog: NewCatalog(nil)})
	// The flux-instance HelmRelease itself is helm-controller's too.
	if len(f) != 2 || f[0].File != "clusters/dev/flux-instance.yaml" || f[1].File != "apps/hr.yaml" ||
		f[1].Suggestion != "Add helm-controller to instance.components of FluxInstance flux-system/flux of HelmRelease flux-system/flux-instance (clusters/dev/flux-instance.yaml:12), or remove HelmRelease.helm.toolkit.fluxcd.io/apps/podinfo from apps/hr.yaml:2." {
		t.Errorf("missing-crd %s", dump(f))
	}
}

// TestFluxInstanceNamedFlux: of two FluxInstances flux-operator reconciles only the one
// named flux, whichever comes first; a cluster whose only FluxInstance has another name
// has none (the API server rejects it; the operator never sees it).
func TestFluxInstanceNamedFlux(t *testing.T) {
	inst := func(name, version string) string {
		return obj("fluxcd.controlplane.io/v1", "FluxInstance", "flux-system", name, "spec:", "  distribution: {version: "+version+", registry: ghcr.io/fluxcd}", "  components: [source-controller, kustomize-controller]")
	}
	c := renderTree(t, map[string]string{"clusters/dev/a-old.yaml": inst("flux-old", "2.9.x"), "clusters/dev/b-flux.yaml": inst("flux", "2.6.x")})
	if fi := clusterFluxInstance(c); fi == nil || fi.obj.ID.Name != "flux" || fi.obj.File != "clusters/dev/b-flux.yaml" {
		t.Fatalf("instance %+v, want flux at clusters/dev/b-flux.yaml", fi)
	}
	if v, ok := clusterFluxVersion(c); !ok || v.Text != "2.6.x" || v.Strict {
		t.Errorf("version %+v, want 2.6.x of the FluxInstance named flux", v)
	}
	other := renderTree(t, map[string]string{"clusters/dev/a-old.yaml": inst("flux-old", "2.9.x")})
	if fi := clusterFluxInstance(other); fi != nil {
		t.Errorf("instance %+v, want none (only flux-old)", fi.obj.ID)
	}
	if v, ok := clusterFluxVersion(other); ok && v.Text == "2.9.x" {
		t.Errorf("version %+v read from FluxInstance flux-old", v)
	}
}

// TestFluxInstanceNameRejected: a FluxInstance not named flux is invalid-spec at its
// metadata.name line (the CRD's validation rule); the one named flux is not.
func TestFluxInstanceNameRejected(t *testing.T) {
	inst := func(name string) string {
		return obj("fluxcd.controlplane.io/v1", "FluxInstance", "flux-system", name, "spec:", "  distribution: {version: 2.6.x, registry: ghcr.io/fluxcd}")
	}
	c := renderTree(t, map[string]string{"clusters/dev/a-old.yaml": inst("flux-old"), "clusters/dev/b-flux.yaml": inst("flux")})
	got := invalidSpec(c, nil, nil)
	msg := "FluxInstance.fluxcd.controlplane.io/flux-system/flux-old is rejected by the API server (the FluxInstance CRD's validation rule self.metadata.name == 'flux'): the only accepted name for a FluxInstance is 'flux', not \"flux-old\"; "
	if len(got) != 1 || got[0].File != "clusters/dev/a-old.yaml" || got[0].Line != 4 || got[0].Severity != Error || len(got[0].Message) < len(msg) || got[0].Message[:len(msg)] != msg {
		t.Fatalf("findings %s\nwant one at clusters/dev/a-old.yaml:4 starting %s", dump(got), msg)
	}
}
