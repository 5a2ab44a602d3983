package fluxinstance

import (
	"cmp"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/values"
)

// Name is the only FluxInstance name flux-operator reconciles: its manager caches
// FluxInstances by the field selector metadata.name=flux in its runtime namespace
// (flux-operator cmd/operator/main.go, fluxcdv1.DefaultInstanceName), and the CRD's
// validation rejects any other name ("the only accepted name for a FluxInstance is
// 'flux'", api/v1/fluxinstance_types.go XValidation).
const Name = "flux"

// ChartDefaults are the instance values of the flux-instance chart's values.yaml that the
// chart's FluxInstance template reads (charts/flux-instance/values.yaml), and its
// fullnameOverride, which names the FluxInstance.
func ChartDefaults() map[string]any {
	return map[string]any{
		"fullnameOverride": Name,
		"instance": map[string]any{
			"distribution": map[string]any{"version": "2.x", "registry": "ghcr.io/fluxcd", "artifact": "oci://ghcr.io/controlplaneio-fluxcd/flux-operator-manifests:latest"},
			"components":   []any{"source-controller", "kustomize-controller", "helm-controller", "notification-controller"},
			"sync":         map[string]any{"interval": "1m", "kind": "GitRepository", "url": "", "ref": "", "path": "", "name": "", "pullSecret": "", "provider": ""},
		},
	}
}

// Spec is the spec of the FluxInstance the chart's templates/instance.yaml renders from
// merged values (ChartDefaults under the release's): distribution, components as given,
// and sync only when instance.sync.url is set (the template's `if .Values.instance.sync.url`).
func Spec(vals map[string]any) map[string]any {
	inst, _ := vals["instance"].(map[string]any)
	spec := map[string]any{}
	if d, ok := inst["distribution"].(map[string]any); ok {
		spec["distribution"] = d
	}
	if c, ok := inst["components"]; ok {
		spec["components"] = c
	}
	if s, ok := inst["sync"].(map[string]any); ok && values.String(s, "url") != "" {
		sync := map[string]any{}
		for _, k := range []string{"kind", "interval", "url", "ref", "path", "name", "provider", "pullSecret"} {
			if v, ok := s[k]; ok && v != "" {
				sync[k] = v
			}
		}
		spec["sync"] = sync
	}
	return spec
}

// IsChartRelease reports whether hr (a HelmRelease in file) installs the flux-instance
// chart: "flux-instance" in its file's path, its name, or its chart's name (spec.chart's
// chart, or chartRef's name).
func IsChartRelease(hr *unstructured.Unstructured, file string) bool {
	return strings.Contains(file+hr.GetName()+ChartName(hr), "flux-instance")
}

// ChartName is the chart a HelmRelease names: spec.chart.spec.chart, else spec.chartRef.name.
func ChartName(u *unstructured.Unstructured) string {
	if c, _, _ := unstructured.NestedString(u.Object, "spec", "chart", "spec", "chart"); c != "" {
		return c
	}
	c, _, _ := unstructured.NestedString(u.Object, "spec", "chartRef", "name")
	return c
}

// FromHelmRelease is the FluxInstance the flux-instance chart of hr renders, values
// resolved against objs (HelmValues): named as the chart's fullname helper names it
// (fullnameOverride, "flux" by default; else the release name, suffixed with the chart's
// name unless it holds it), in the release's namespace (spec.targetNamespace, else hr's).
func FromHelmRelease(hr *unstructured.Unstructured, objs []*graph.Object) *unstructured.Unstructured {
	vals := HelmValues(hr, objs, ChartDefaults())
	ns, _, _ := unstructured.NestedString(hr.Object, "spec", "targetNamespace")
	ns = cmp.Or(ns, hr.GetNamespace())
	name := values.String(vals, "fullnameOverride")
	if name == "" {
		release, _, _ := unstructured.NestedString(hr.Object, "spec", "releaseName")
		if release == "" {
			release = hr.GetName()
			if t, _, _ := unstructured.NestedString(hr.Object, "spec", "targetNamespace"); t != "" {
				release = t + "-" + release // helm-controller's default release name
			}
		}
		chart := cmp.Or(values.String(vals, "nameOverride"), "flux-instance")
		name = release
		if !strings.Contains(release, chart) {
			name = release + "-" + chart
		}
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "fluxcd.controlplane.io/v1", "kind": "FluxInstance",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     Spec(vals),
	}}
	return u
}
