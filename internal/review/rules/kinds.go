package rules

// namespacedBuiltins are the namespaced kinds of Kubernetes and Flux, by "group/Kind"
// (core group: "/Kind"). Kinds not listed here and not described by a CRD in the graph
// or the runtime catalog have unknown scope, and scope-dependent rules stay silent.
var namespacedBuiltins = map[string]bool{}

// clusterBuiltins are the cluster-scoped kinds of Kubernetes.
var clusterBuiltins = map[string]bool{}

// addonScope maps well-known add-on kinds to true (namespaced) or false (cluster-scoped).
var addonScope = map[string]bool{}

func init() {
	for _, gk := range []string{
		"/ConfigMap", "/Secret", "/Service", "/ServiceAccount", "/Pod", "/PersistentVolumeClaim",
		"/Endpoints", "/Event", "/LimitRange", "/ResourceQuota", "/ReplicationController", "/PodTemplate",
		"apps/Deployment", "apps/StatefulSet", "apps/DaemonSet", "apps/ReplicaSet", "apps/ControllerRevision",
		"batch/Job", "batch/CronJob", "networking.k8s.io/Ingress", "networking.k8s.io/NetworkPolicy",
		"policy/PodDisruptionBudget", "rbac.authorization.k8s.io/Role", "rbac.authorization.k8s.io/RoleBinding",
		"autoscaling/HorizontalPodAutoscaler", "coordination.k8s.io/Lease", "discovery.k8s.io/EndpointSlice",
		"kustomize.toolkit.fluxcd.io/Kustomization", "helm.toolkit.fluxcd.io/HelmRelease",
		"source.toolkit.fluxcd.io/GitRepository", "source.toolkit.fluxcd.io/OCIRepository",
		"source.toolkit.fluxcd.io/HelmRepository", "source.toolkit.fluxcd.io/HelmChart",
		"source.toolkit.fluxcd.io/Bucket", "source.toolkit.fluxcd.io/ExternalArtifact",
		"notification.toolkit.fluxcd.io/Alert", "notification.toolkit.fluxcd.io/Provider",
		"notification.toolkit.fluxcd.io/Receiver", "image.toolkit.fluxcd.io/ImageRepository",
		"image.toolkit.fluxcd.io/ImagePolicy", "image.toolkit.fluxcd.io/ImageUpdateAutomation",
	} {
		namespacedBuiltins[gk] = true
	}
	// Common add-on kinds whose CRDs usually come from charts (scope from their CRDs): they
	// still need their CRDs, but their scope is known without one in the graph.
	for _, gk := range []string{
		"cert-manager.io/Certificate", "cert-manager.io/Issuer", "cert-manager.io/CertificateRequest",
		"monitoring.coreos.com/ServiceMonitor", "monitoring.coreos.com/PodMonitor", "monitoring.coreos.com/PrometheusRule",
		"monitoring.coreos.com/Prometheus", "monitoring.coreos.com/Alertmanager", "monitoring.coreos.com/ScrapeConfig",
		"external-secrets.io/ExternalSecret", "external-secrets.io/SecretStore",
		"gateway.networking.k8s.io/Gateway", "gateway.networking.k8s.io/HTTPRoute", "gateway.networking.k8s.io/GRPCRoute",
		"postgresql.cnpg.io/Cluster", "grafana.integreatly.org/GrafanaDashboard", "volsync.backube/ReplicationSource",
		"volsync.backube/ReplicationDestination",
	} {
		addonScope[gk] = true
	}
	for _, gk := range []string{"cert-manager.io/ClusterIssuer", "external-secrets.io/ClusterSecretStore",
		"external-secrets.io/ClusterExternalSecret", "gateway.networking.k8s.io/GatewayClass"} {
		addonScope[gk] = false
	}
	for _, gk := range []string{
		"/Namespace", "/Node", "/PersistentVolume", "apiextensions.k8s.io/CustomResourceDefinition",
		"rbac.authorization.k8s.io/ClusterRole", "rbac.authorization.k8s.io/ClusterRoleBinding",
		"storage.k8s.io/StorageClass", "storage.k8s.io/CSIDriver", "storage.k8s.io/VolumeAttachment",
		"scheduling.k8s.io/PriorityClass", "networking.k8s.io/IngressClass", "node.k8s.io/RuntimeClass",
		"admissionregistration.k8s.io/ValidatingWebhookConfiguration",
		"admissionregistration.k8s.io/MutatingWebhookConfiguration",
		"admissionregistration.k8s.io/ValidatingAdmissionPolicy",
		"admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding",
		"apiregistration.k8s.io/APIService", "flowcontrol.apiserver.k8s.io/FlowSchema",
		"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration",
	} {
		clusterBuiltins[gk] = true
	}
}

// builtin reports whether "group/Kind" is served without any CRD.
func builtin(group, kind string) bool {
	gk := group + "/" + kind
	if namespacedBuiltins[gk] || clusterBuiltins[gk] {
		return true
	}
	switch group {
	case "", "apps", "batch", "policy", "autoscaling", "networking.k8s.io", "rbac.authorization.k8s.io",
		"storage.k8s.io", "apiextensions.k8s.io", "admissionregistration.k8s.io", "coordination.k8s.io",
		"discovery.k8s.io", "scheduling.k8s.io", "node.k8s.io", "certificates.k8s.io", "events.k8s.io",
		"apiregistration.k8s.io", "flowcontrol.apiserver.k8s.io", "resource.k8s.io", "authorization.k8s.io",
		"authentication.k8s.io":
		return true
	}
	return false
}

// namespaced answers whether objects of "group/Kind" need a namespace, and whether the
// scope is known at all.
func (v *view) namespaced(group, kind string, cat *Catalog) (namespaced, known bool) {
	gk := group + "/" + kind
	switch {
	case namespacedBuiltins[gk]:
		return true, true
	case clusterBuiltins[gk]:
		return false, true
	}
	if s, ok := v.crdScope[gk]; ok {
		return s == "Namespaced", true
	}
	if ns, ok := addonScope[gk]; ok {
		return ns, true
	}
	if rk, ok := cat.Lookup(gk); ok && rk.ScopeKnown {
		return rk.Namespaced, true
	}
	return false, false
}

// criticalKinds lose data or take other objects with them when deleted: a prune of one
// is an error (DESIGN.md prune-transient and destructive-prune).
var criticalKinds = map[string]bool{
	"/Namespace": true, "apiextensions.k8s.io/CustomResourceDefinition": true,
	"/PersistentVolumeClaim": true, "/PersistentVolume": true, "apps/StatefulSet": true,
}
