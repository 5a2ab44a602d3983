package rules

import (
	"fmt"
	"slices"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// defaultComponents is what flux-operator installs for a FluxInstance without
// spec.components (controlplaneio-fluxcd/flux-operator api/v1/fluxinstance_types.go
// FluxInstance.GetComponents; internal/builder/components.go DefaultComponents). The image
// controllers and source-watcher are opt-in (AllComponents there).
var defaultComponents = []string{"source-controller", "kustomize-controller", "helm-controller", "notification-controller"}

// allComponents is every name flux-operator accepts in spec.components
// (internal/builder/components.go AllComponents, which ValidateAndPatchComponents checks).
var allComponents = append(slices.Clone(defaultComponents), "image-reflector-controller", "image-automation-controller", "source-watcher")

// fluxComponent is the Flux controller whose manifests ship the CRD of group/kind, as
// flux-operator selects them: the kustomization it builds lists one `<component>.yaml` per
// spec.components entry (internal/builder/templates.go kustomizationTmpl), and each of those
// holds the controller's CRDs with its Deployment. "" when group is not Flux's.
func fluxComponent(group, kind string) string {
	switch group {
	case "source.toolkit.fluxcd.io":
		return "source-controller"
	case "kustomize.toolkit.fluxcd.io":
		return "kustomize-controller"
	case "helm.toolkit.fluxcd.io":
		return "helm-controller"
	case "notification.toolkit.fluxcd.io":
		return "notification-controller"
	case "image.toolkit.fluxcd.io":
		if kind == "ImageUpdateAutomation" {
			return "image-automation-controller"
		}
		return "image-reflector-controller"
	case "source.extensions.fluxcd.io":
		return "source-watcher"
	}
	return ""
}

// fluxInstance is a cluster's FluxInstance and the components flux-operator installs for it.
type fluxInstance struct {
	obj *graph.Object
	// components as listed, or defaultComponents when spec.components is absent or empty;
	// listed says which.
	components []string
	listed     bool
}

// label is "FluxInstance ns/name (file:line)", line being that of spec.components when
// listed (instanceName's words for a HelmRelease's).
func (fi *fluxInstance) label(c *graph.Cluster) string {
	return fmt.Sprintf("%s (%s:%d)", instanceName(fi.obj), fi.obj.File, fi.line(c))
}

// line is the line of spec.components (of a HelmRelease's spec.values.instance.components),
// or of the manifest when it has none.
func (fi *fluxInstance) line(c *graph.Cluster) int {
	keys := []string{"spec", "components"}
	if fi.obj.HelmRelease != "" {
		keys = []string{"spec", "values", "instance", "components"}
	}
	if l, n := keyLine(c, fi.obj.File, fi.obj.Line, keys...); n == len(keys) {
		return l
	}
	return fi.obj.Line
}

// has reports whether component is installed.
func (fi *fluxInstance) has(component string) bool { return slices.Contains(fi.components, component) }

// clusterFluxInstance is the FluxInstance flux-operator reconciles in c (clusterInstance:
// the one named flux) with its components; nil when c has none, or when spec.components is
// not a list of component names (a substitution variable left in it, say), which leaves
// the installed set unknown.
func clusterFluxInstance(c *graph.Cluster) *fluxInstance {
	if c == nil {
		return nil
	}
	if o := clusterInstance(c, sortedObjects(c)); o != nil {
		v, found := graph.ValueAt(o.Body.Object, []string{"spec", "components"})
		if !found || v == nil {
			return &fluxInstance{obj: o, components: defaultComponents}
		}
		list, ok := v.([]any)
		if !ok {
			return nil
		}
		fi := &fluxInstance{obj: o, listed: len(list) > 0}
		for _, e := range list {
			s, ok := e.(string)
			if !ok || !slices.Contains(allComponents, s) {
				return nil // flux-operator's build fails on it and keeps what it installed
			}
			fi.components = append(fi.components, s)
		}
		if !fi.listed {
			fi.components = defaultComponents // GetComponents: an empty list is the default set
		}
		return fi
	}
	return nil
}
