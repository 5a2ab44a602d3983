package rules

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/artifact"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// need is something an object (or a Kustomization itself) requires to exist before Flux
// can apply it or before it can become healthy, and the Kustomizations that provide it.
type need struct {
	what      string
	providers []graph.Ref
	severity  Severity
	// runtime is set when the thing appears only once a controller reconciles the provider.
	runtime *RuntimeKind
	// firstStage marks a CRD or a Namespace: kustomize-controller applies those first and
	// waits for them, so a remote file of the holder itself may provide it.
	firstStage bool
	// beforeBuild marks what the holder's own build reads (a non-optional substituteFrom
	// object): kustomize-controller loads it before it builds or applies anything
	// (fluxcd/pkg kustomize SubstituteVariables → LoadVariables), so the holder providing
	// it itself does not satisfy it.
	beforeBuild bool
}

// objectNeeds lists what o needs from the graph. Error: the dry-run or apply fails
// (namespace, CRD, runtime CRD); warning: the object applies but stays unhealthy until
// the thing exists (a source, a StorageClass, an issuer, a Gateway).
func (v *view) objectNeeds(o *graph.Object, env *Env) []need {
	var out []need
	add := func(what string, sev Severity, id graph.ObjectID) {
		if p := v.owners(id); len(p) > 0 {
			out = append(out, need{what: what, providers: p, severity: sev})
		}
	}
	id, u := o.ID, o.Body.Object
	// The Flux installation's own namespace exists before any Kustomization runs.
	if id.Namespace != "" && id.Namespace != v.c.Root.Namespace && !(id.Group == "" && id.Kind == "Namespace") {
		if n, ok := v.namespaceNeed(o); ok {
			out = append(out, n)
		}
	}
	gk := id.Group + "/" + id.Kind
	if !builtin(id.Group, id.Kind) && !env.Catalog.Preinstalled(id.Group) {
		if p := v.crdOwners[gk]; len(p) > 0 {
			out = append(out, need{what: "the CRD of " + kindName(id), providers: p, severity: Error, firstStage: true})
		} else if rk, ok := v.runtimeKind(env, gk); ok && o.HelmRelease != "" && rk.HelmRelease != "" {
			// One chart's object needing another rendered chart's CRD: helm-controller
			// orders HelmReleases by their own dependsOn (helmReleaseNeeds).
		} else if ok {
			if p := v.triggerOwners(rk); len(p) > 0 {
				out = append(out, need{what: fmt.Sprintf("the CRD of %s (created at runtime by the %s%s)", kindName(id), rk.TriggerName(), rk.basis("; ")), providers: p, severity: Error, runtime: &rk, firstStage: true})
			}
		}
	}
	for _, ref := range configRefs(o) {
		cid := graph.ObjectID{Kind: ref[0], Namespace: id.Namespace, Name: ref[1]}
		if p := v.configProviders(cid); len(p) > 0 {
			out = append(out, need{what: ref[0] + " " + id.Namespace + "/" + ref[1], providers: p, severity: Warning})
		}
	}
	str := func(fields ...string) string { s, _, _ := unstructured.NestedString(u, fields...); return s }
	storageClass := func(name string) {
		if name == "" {
			return
		}
		add("StorageClass "+name, Warning, graph.ObjectID{Group: "storage.k8s.io", Kind: "StorageClass", Name: name})
		if id.Group == "cdi.kubevirt.io" {
			add("CDI StorageProfile "+name, Warning, graph.ObjectID{Group: "cdi.kubevirt.io", Kind: "StorageProfile", Name: name})
		}
	}
	switch gk {
	case "/PersistentVolumeClaim":
		storageClass(str("spec", "storageClassName"))
	case "cdi.kubevirt.io/DataVolume":
		storageClass(str("spec", "storage", "storageClassName"))
		storageClass(str("spec", "pvc", "storageClassName"))
	case "apps/StatefulSet":
		tpls, _, _ := unstructured.NestedSlice(u, "spec", "volumeClaimTemplates")
		for _, t := range tpls {
			if m, ok := t.(map[string]any); ok {
				s, _, _ := unstructured.NestedString(m, "spec", "storageClassName")
				storageClass(s)
			}
		}
	case "helm.toolkit.fluxcd.io/HelmRelease":
		for _, path := range [][]string{{"spec", "chart", "spec", "sourceRef"}, {"spec", "chartRef"}} {
			if ref, ok, _ := unstructured.NestedStringMap(u, path...); ok && ref["name"] != "" {
				ns := ref["namespace"]
				if ns == "" {
					ns = id.Namespace
				}
				add(ref["kind"]+" "+ns+"/"+ref["name"], Warning, sourceID(ref["kind"], ns, ref["name"]))
			}
		}
	case "cert-manager.io/Certificate":
		issuer(add, id.Namespace, str("spec", "issuerRef", "kind"), str("spec", "issuerRef", "name"))
	case "networking.k8s.io/Ingress":
		ann := o.Body.GetAnnotations()
		issuer(add, id.Namespace, "ClusterIssuer", ann["cert-manager.io/cluster-issuer"])
		issuer(add, id.Namespace, "Issuer", ann["cert-manager.io/issuer"])
	case "gateway.networking.k8s.io/Gateway":
		if gc := str("spec", "gatewayClassName"); gc != "" {
			add("GatewayClass "+gc, Warning, graph.ObjectID{Group: "gateway.networking.k8s.io", Kind: "GatewayClass", Name: gc})
		}
	case "gateway.networking.k8s.io/HTTPRoute", "gateway.networking.k8s.io/GRPCRoute", "gateway.networking.k8s.io/TLSRoute",
		"gateway.networking.k8s.io/TCPRoute", "gateway.networking.k8s.io/UDPRoute":
		parents, _, _ := unstructured.NestedSlice(u, "spec", "parentRefs")
		for _, p := range parents {
			m, ok := p.(map[string]any)
			if !ok {
				continue
			}
			if k, _ := m["kind"].(string); k != "" && k != "Gateway" {
				continue
			}
			name, _ := m["name"].(string)
			ns, _ := m["namespace"].(string)
			if ns == "" {
				ns = id.Namespace
			}
			add("Gateway "+ns+"/"+name, Warning, graph.ObjectID{Group: "gateway.networking.k8s.io", Kind: "Gateway", Namespace: ns, Name: name})
		}
	}
	return out
}

// namespaceNeed is o's need of its Namespace: the Kustomizations whose builds emit it, else
// the HelmRelease whose chart creates it (a template, or install.createNamespace), which
// helm-controller does only once it installs the release: a runtime need, which the
// provider's wait must cover (missing-wait) and which its own Kustomization cannot meet
// (runtime-namespace-same-pass). None for an object of that same release: Helm creates the
// release namespace first, and installs a template Namespace before what is in it
// (releaseutil InstallOrder).
func (v *view) namespaceNeed(o *graph.Object) (need, bool) {
	ns := o.ID.Namespace
	what := "Namespace " + ns
	var built []graph.Ref
	var chart *graph.Object
	for _, p := range v.c.Owners[graph.ObjectID{Kind: "Namespace", Name: ns}] {
		switch {
		case p.HelmRelease == "":
			built = append(built, p.Owner)
		case chart == nil:
			chart = p
		}
	}
	switch {
	case len(built) > 0:
		return need{what: what, providers: built, severity: Error, firstStage: true}, true
	case chart == nil || chart.HelmRelease == o.HelmRelease:
		return need{}, false
	}
	rk := RuntimeKind{Trigger: helmGroup + "/HelmRelease", HelmRelease: chart.HelmRelease, Chart: v.releaseChart(chart.Owner, chart.HelmRelease)}
	return need{what: fmt.Sprintf("%s (created at runtime by the %s)", what, rk.TriggerName()), providers: []graph.Ref{chart.Owner},
		severity: Error, runtime: &rk, firstStage: true}, true
}

// kustomizationNeeds lists what a Kustomization needs before it can build: its source
// and its substituteFrom ConfigMaps and Secrets that are not optional (KC LoadVariables).
func (v *view) kustomizationNeeds(ks *graph.Kustomization) []need {
	var out []need
	src := ks.Spec.SourceRef
	if src.Kind != "" {
		p := v.owners(sourceID(src.Kind, src.Namespace, src.Name))
		if len(p) == 0 && src.Kind == "ExternalArtifact" {
			p = artifact.Owners(v.c, src) // made by the generator they apply
		}
		if len(p) > 0 {
			out = append(out, need{what: "its source " + src.String(), providers: p, severity: Warning})
		}
	}
	if ks.Spec.PostBuild != nil {
		for _, s := range ks.Spec.PostBuild.SubstituteFrom {
			if s.Optional {
				continue
			}
			id := graph.ObjectID{Kind: s.Kind, Namespace: ks.Ref.Namespace, Name: s.Name}
			what := fmt.Sprintf("substituteFrom %s %s/%s", s.Kind, ks.Ref.Namespace, s.Name)
			if p := v.owners(id); len(p) > 0 {
				out = append(out, need{what: what, providers: p, severity: Error, beforeBuild: true})
			} else if p := v.configProviders(id); len(p) > 0 {
				out = append(out, need{what: what + " (written at runtime)", providers: p, severity: Error, beforeBuild: true})
			}
		}
	}
	return out
}

func issuer(add func(string, Severity, graph.ObjectID), ns, kind, name string) {
	if name == "" {
		return
	}
	if kind == "ClusterIssuer" {
		add("ClusterIssuer "+name, Warning, graph.ObjectID{Group: "cert-manager.io", Kind: "ClusterIssuer", Name: name})
		return
	}
	add("Issuer "+ns+"/"+name, Warning, graph.ObjectID{Group: "cert-manager.io", Kind: "Issuer", Namespace: ns, Name: name})
}

// sourceID is the identity of a Flux source object of kind in ns.
func sourceID(kind, ns, name string) graph.ObjectID {
	return graph.ObjectID{Group: "source.toolkit.fluxcd.io", Kind: kind, Namespace: ns, Name: name}
}

// triggerOwners returns the Kustomizations that emit an object making rk's CRD appear.
func (v *view) triggerOwners(rk RuntimeKind) []graph.Ref {
	key := rk.Trigger + "\x00" + rk.Chart + "\x00" + rk.HelmRelease
	if out, ok := v.triggerRefs[key]; ok {
		return out
	}
	seen := map[graph.Ref]bool{}
	var out []graph.Ref
	each(v.c, func(ks *graph.Kustomization, o *graph.Object) {
		if !seen[ks.Ref] && v.triggers(o, rk) {
			seen[ks.Ref] = true
			out = append(out, ks.Ref)
		}
	})
	if v.triggerRefs == nil {
		v.triggerRefs = map[string][]graph.Ref{}
	}
	v.triggerRefs[key] = out
	return out
}

func kindName(id graph.ObjectID) string {
	if id.Group == "" {
		return id.Kind
	}
	return id.Kind + "." + id.Group
}
