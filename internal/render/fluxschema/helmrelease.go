package fluxschema

import "fmt"

// helmRelease is what the helm.toolkit.fluxcd.io HelmRelease CRD constrains, from the
// kubebuilder markers of fluxcd/helm-controller api/v2/helmrelease_types.go
// (HelmReleaseSpec, HelmChartTemplateSpec, DriftDetection, Install, Upgrade, Test,
// Rollback, Uninstall and their remediations). The v2beta1 and v2beta2 schemas set the
// same bounds on these fields.
var helmRelease = []field{
	typed("spec", "object"),
	{path: "spec.interval", typ: "string", pattern: duration, required: true}, // Interval: Type=string, Pattern, +required
	typed("spec.chart", "object"),
	{path: "spec.chart.spec", typ: "object", required: true},                          // HelmChartTemplate.Spec: +required
	{path: "spec.chart.spec.chart", typ: "string", min: 1, max: 2048, required: true}, // HelmChartTemplateSpec.Chart
	typed("spec.chart.spec.version", "string"),
	{path: "spec.chart.spec.sourceRef", typ: "object", required: true},
	enum("spec.chart.spec.sourceRef.kind", "HelmRepository", "GitRepository", "Bucket"), // reference_types.go CrossNamespaceObjectReference
	dur("spec.chart.spec.interval"),
	enum("spec.chart.spec.reconcileStrategy", "ChartVersion", "Revision"),
	typed("spec.chart.spec.valuesFiles", "array"),
	typed("spec.chartRef", "object"),
	enum("spec.chartRef.kind", "OCIRepository", "HelmChart", "ExternalArtifact"), // reference_types.go CrossNamespaceSourceReference
	typed("spec.suspend", "boolean"),
	str("spec.releaseName", 1, 53),      // ReleaseName: MinLength=1, MaxLength=53
	str("spec.targetNamespace", 1, 63),  // TargetNamespace: MinLength=1, MaxLength=63
	str("spec.storageNamespace", 1, 63), // StorageNamespace: MinLength=1, MaxLength=63
	typed("spec.dependsOn", "array"),
	dur("spec.timeout"),
	typed("spec.maxHistory", "integer"),
	str("spec.serviceAccountName", 1, 253), // ServiceAccountName: MinLength=1, MaxLength=253
	typed("spec.persistentClient", "boolean"),
	enum("spec.driftDetection.mode", "enabled", "warn", "disabled"),
	dur("spec.install.timeout"),
	enum("spec.install.crds", "Skip", "Create", "CreateReplace"),
	typed("spec.install.createNamespace", "boolean"),
	typed("spec.install.disableTakeOwnership", "boolean"),
	typed("spec.install.disableWait", "boolean"),
	typed("spec.install.remediation.retries", "integer"),
	enum("spec.install.strategy.name", "RemediateOnFailure", "RetryOnFailure"),
	dur("spec.install.strategy.retryInterval"),
	dur("spec.upgrade.timeout"),
	enum("spec.upgrade.crds", "Skip", "Create", "CreateReplace"),
	typed("spec.upgrade.force", "boolean"),
	typed("spec.upgrade.remediation.retries", "integer"),
	enum("spec.upgrade.remediation.strategy", "rollback", "uninstall"),
	enum("spec.upgrade.strategy.name", "RemediateOnFailure", "RetryOnFailure"),
	dur("spec.upgrade.strategy.retryInterval"),
	enum("spec.upgrade.serverSideApply", "enabled", "disabled", "auto"),
	enum("spec.upgrade.chartNameChangeStrategy", "InPlaceUpdate", "Reinstall"),
	typed("spec.test.enable", "boolean"),
	dur("spec.test.timeout"),
	dur("spec.rollback.timeout"),
	enum("spec.rollback.serverSideApply", "enabled", "disabled", "auto"),
	dur("spec.uninstall.timeout"),
	enum("spec.uninstall.deletionPropagation", "background", "foreground", "orphan"),
	typed("spec.valuesFrom", "array"),
	enum("spec.valuesFrom[].kind", "Secret", "ConfigMap"), // fluxcd/pkg apis/meta ValuesReference.Kind
	typed("spec.values", "object"),                        // Values *apiextensionsv1.JSON: an object in the schema
	typed("spec.postRenderers", "array"),
	enum("spec.postRenderStrategy", "nohooks", "combined", "separate"),
	typed("spec.commonMetadata", "object"),
}

// chartXorChartRef is HelmReleaseSpec's XValidation rule "either chart or chartRef must be
// set" ((has(self.chart) && !has(self.chartRef)) || (!has(self.chart) && has(self.chartRef))).
func chartXorChartRef(obj map[string]any) []Violation {
	spec, ok := obj["spec"].(map[string]any)
	if !ok {
		return nil
	}
	_, chart := spec["chart"]
	_, ref := spec["chartRef"]
	if chart == ref {
		what := "neither is set"
		if chart {
			what = "both are set"
		}
		return []Violation{violation("spec", fmt.Sprintf("either chart or chartRef must be set (%s)", what))}
	}
	return nil
}
