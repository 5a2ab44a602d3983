package fluxschema

// kustomization is what the kustomize.toolkit.fluxcd.io Kustomization CRD constrains beyond
// the field types (which decoding already checks: kustomize.NewKustomization), from the
// kubebuilder markers of fluxcd/kustomize-controller api/v1/kustomization_types.go
// (KustomizationSpec, PostBuild, SubstituteReference) and api/v1/reference_types.go
// (CrossNamespaceSourceReference). spec.path is optional (+optional: the source's root).
var kustomization = []field{
	dur("spec.interval"),      // Interval: Type=string, Pattern, +required
	dur("spec.retryInterval"), // RetryInterval: Type=string, Pattern
	dur("spec.timeout"),       // Timeout: Type=string, Pattern
	str("spec.targetNamespace", 1, 63),
	str("spec.namePrefix", 1, 200),
	str("spec.nameSuffix", 1, 200),
	enum("spec.deletionPolicy", "MirrorPrune", "Delete", "WaitForTermination", "Orphan"),
	enum("spec.sourceRef.kind", "OCIRepository", "GitRepository", "Bucket", "ExternalArtifact"),
	enum("spec.postBuild.substituteStrategy", "WithVariables", "Always"),
	enum("spec.postBuild.substituteFrom[].kind", "Secret", "ConfigMap"),
	str("spec.postBuild.substituteFrom[].name", 1, 253),
	enum("spec.decryption.provider", "sops"),
}
