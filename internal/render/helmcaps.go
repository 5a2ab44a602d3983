package render

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm"
	"github.com/tiergate/tiergate/internal/render/values"
)

// scopes answers whether a kind is namespaced: built-in kinds, then the graph's CRDs.
type scopes map[schema.GroupKind]bool

// clusterScoped are the cluster-scoped built-in kinds charts commonly render.
var clusterScoped = map[schema.GroupKind]bool{}

func init() {
	for _, gk := range []string{"Namespace", "Node", "PersistentVolume", "CustomResourceDefinition.apiextensions.k8s.io",
		"ClusterRole.rbac.authorization.k8s.io", "ClusterRoleBinding.rbac.authorization.k8s.io", "StorageClass.storage.k8s.io",
		"CSIDriver.storage.k8s.io", "VolumeAttachment.storage.k8s.io", "PriorityClass.scheduling.k8s.io", "IngressClass.networking.k8s.io",
		"RuntimeClass.node.k8s.io", "ValidatingWebhookConfiguration.admissionregistration.k8s.io",
		"MutatingWebhookConfiguration.admissionregistration.k8s.io", "ValidatingAdmissionPolicy.admissionregistration.k8s.io",
		"ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io", "APIService.apiregistration.k8s.io",
		"FlowSchema.flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io",
		"CertificateSigningRequest.certificates.k8s.io"} {
		clusterScoped[schema.ParseGroupKind(gk)] = true
	}
}

// newScopes reads the scope of every CRD in c.
func newScopes(c *graph.Cluster) scopes {
	sc := scopes{}
	for id, objs := range c.Owners {
		if id.Group == "apiextensions.k8s.io" && id.Kind == "CustomResourceDefinition" && objs[0].Body != nil {
			sc.add(objs[0].Body.Object)
		}
	}
	return sc
}

// add records the scope of the kind the CustomResourceDefinition crd defines.
func (sc scopes) add(crd map[string]any) {
	g, _, _ := unstructured.NestedString(crd, "spec", "group")
	k, _, _ := unstructured.NestedString(crd, "spec", "names", "kind")
	s, _, _ := unstructured.NestedString(crd, "spec", "scope")
	sc[schema.GroupKind{Group: g, Kind: k}] = s != "Cluster"
}

// namespaced reports whether objects of group/kind live in a namespace, and whether that is
// known: a kind of a built-in API group (client-go's scheme) or of Flux, or one with a CRD
// in the graph. An unknown kind is taken as namespaced, as most custom kinds are.
func (sc scopes) namespaced(group, kind string) (namespaced, known bool) {
	gk := schema.GroupKind{Group: group, Kind: kind}
	if ns, ok := sc[gk]; ok {
		return ns, true
	}
	known = clientscheme.Scheme.IsGroupRegistered(group) || strings.HasSuffix(group, ".toolkit.fluxcd.io")
	return !clusterScoped[gk], known
}

// apiVersions are the API versions the cluster serves beyond the built-in ones: every
// served version of the graph's CRDs, as "group/version" and "group/version/Kind", and
// .tiergate.yaml apiVersions. Sorted.
func (r *renderer) apiVersions(c *graph.Cluster) []string {
	set := map[string]bool{}
	for id, objs := range c.Owners {
		if id.Group != "apiextensions.k8s.io" || id.Kind != "CustomResourceDefinition" || objs[0].Body == nil {
			continue
		}
		b := objs[0].Body.Object
		g, _, _ := unstructured.NestedString(b, "spec", "group")
		k, _, _ := unstructured.NestedString(b, "spec", "names", "kind")
		vs, _, _ := unstructured.NestedSlice(b, "spec", "versions")
		for _, v := range vs {
			m, _ := v.(map[string]any)
			if served, ok := m["served"].(bool); ok && !served {
				continue
			}
			if n := values.String(m, "name"); n != "" {
				set[g+"/"+n], set[g+"/"+n+"/"+k] = true, true
			}
		}
	}
	if r.cfg != nil {
		for _, v := range r.cfg.APIVersions {
			set[v] = true
		}
	}
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// kubeVersion is .tiergate.yaml kubeVersion, else helm.DefaultKubeVersion.
func (r *renderer) kubeVersion() string {
	if r.cfg != nil && r.cfg.KubeVersion != "" {
		return r.cfg.KubeVersion
	}
	return helm.DefaultKubeVersion
}
