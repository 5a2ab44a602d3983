package helmrelease

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm/fetch"
	"github.com/tiergate/tiergate/internal/render/values"
)

const (
	HelmGroup   = "helm.toolkit.fluxcd.io"
	sourceGroup = "source.toolkit.fluxcd.io"
)

// ChartHost is the host a policy must allow to pull ref.
func ChartHost(ref fetch.Ref) string {
	u, err := url.Parse(ref.URL)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// ChartSource is where a HelmRelease's chart comes from: a folder of the repository
// (Dir, relative to it, with Root the source's root for valuesFiles), or a remote ref.
type ChartSource struct {
	InRepo        bool
	Dir, root     string
	Remote        fetch.Ref
	ValuesFiles   []string
	ignoreMissing bool
	// OCISource says the chart comes from an OCIRepository, whose artifact revision
	// helm-controller appends to the chart version.
	OCISource bool
	// Unresolved says why the chart is unknown ("" when it is known).
	Unresolved string
	// HelmChart identifies the HelmChart source-controller builds an in-repo chart as (its
	// namespace, name and spec as JSON: a change of any is a new generation, which forces a
	// rebuild); "" when no HelmChart builds it (an OCIRepository's chart).
	HelmChart string
	// Strategy is the HelmChart's spec.reconcileStrategy ("" is ChartVersion).
	Strategy string
	// Names says, for an in-repo chart, which field names its folder and in which source
	// (`spec.chart.spec.chart "./charts/web" of GitRepository/flux-system/flux-system
	// (whose artifact is the repository root)`),
	// for the error of a folder that is not there.
	Names string
}

// ResolveChart finds the chart hr installs, as helm-controller's getSource
// (internal/controller/helmrelease_controller.go) for spec.chartRef and
// buildHelmChartFromTemplate (internal/reconcile/helmchart_template.go) for spec.chart,
// then source-controller's reconcilers for the source it names. Sources are the
// cluster's rendered objects; src maps a Flux source to the repository folder its
// artifact is built from (sourceRoot), ok false when it is not the repository.
func ResolveChart(hr *unstructured.Unstructured, c *graph.Cluster, src func(graph.SourceRef) (string, bool)) ChartSource {
	ns := hr.GetNamespace()
	if ref, ok, _ := unstructured.NestedMap(hr.Object, "spec", "chartRef"); ok {
		kind, name := values.String(ref, "kind"), values.String(ref, "name")
		sref := graph.SourceRef{Kind: kind, Name: name, Namespace: cmp.Or(values.String(ref, "namespace"), ns)}
		switch kind {
		case "OCIRepository":
			return ociChart(sref, c, src)
		case "HelmChart":
			body := SourceBody(c, sref)
			if body == nil {
				return ChartSource{Unresolved: fmt.Sprintf("chartRef %s is not in the cluster's graph", sref)}
			}
			spec, _, _ := unstructured.NestedMap(body.Object, "spec")
			cs := templateChart(spec, sref.Namespace, c, src)
			cs.HelmChart = helmChartKey(cs, sref.Namespace, sref.Name, spec)
			cs.Names = fmt.Sprintf("spec.chart %q of HelmChart %s/%s (spec.chartRef) in %s", values.String(spec, "chart"), sref.Namespace, sref.Name, cs.Names)
			return cs
		}
		return ChartSource{Unresolved: fmt.Sprintf("chartRef kind %q is not rendered offline (OCIRepository and HelmChart are)", kind)}
	}
	spec, ok, _ := unstructured.NestedMap(hr.Object, "spec", "chart", "spec")
	if !ok {
		return ChartSource{Unresolved: "neither spec.chart nor spec.chartRef is set"}
	}
	// buildHelmChartFromTemplate: the HelmChart lives in the sourceRef's namespace, the
	// HelmRelease's when it sets none.
	sr, _, _ := unstructured.NestedMap(spec, "sourceRef")
	chartNS := cmp.Or(values.String(sr, "namespace"), ns)
	cs := templateChart(spec, chartNS, c, src)
	cs.Names = fmt.Sprintf("spec.chart.spec.chart %q of %s", values.String(spec, "chart"), cs.Names)
	// The HelmChart's interval is the template's, else the HelmRelease's (GetInterval).
	if _, ok := spec["interval"]; !ok {
		if iv, ok, _ := unstructured.NestedString(hr.Object, "spec", "interval"); ok {
			spec["interval"] = iv
		}
	}
	cs.HelmChart = helmChartKey(cs, chartNS, ns+"-"+hr.GetName(), spec) // GetHelmChartName
	return cs
}

// helmChartKey is chartSource.helmChart for an in-repo chart of HelmChart namespace/name
// with spec; "" for another chart.
func helmChartKey(cs ChartSource, namespace, name string, spec map[string]any) string {
	if !cs.InRepo {
		return ""
	}
	b, err := json.Marshal([]any{namespace, name, spec})
	if err != nil {
		return ""
	}
	return string(b)
}

// templateChart resolves a HelmChart spec (chart, version, sourceRef, valuesFiles) in
// namespace ns: source-controller's HelmChartReconciler buildFromHelmRepository (http
// index or OCI registry) and buildFromTarballArtifact (a chart path in a GitRepository or
// Bucket artifact).
func templateChart(spec map[string]any, ns string, c *graph.Cluster, src func(graph.SourceRef) (string, bool)) ChartSource {
	sr, _, _ := unstructured.NestedMap(spec, "sourceRef")
	sref := graph.SourceRef{Kind: values.String(sr, "kind"), Name: values.String(sr, "name"), Namespace: cmp.Or(values.String(sr, "namespace"), ns)}
	chart, version := values.String(spec, "chart"), values.String(spec, "version")
	files, _, _ := unstructured.NestedStringSlice(spec, "valuesFiles")
	ignore, _, _ := unstructured.NestedBool(spec, "ignoreMissingValuesFiles")
	body := SourceBody(c, sref)
	switch sref.Kind {
	case "HelmRepository":
		if body == nil {
			return ChartSource{Unresolved: fmt.Sprintf("sourceRef %s is not in the cluster's graph", sref)}
		}
		u, _, _ := unstructured.NestedString(body.Object, "spec", "url")
		typ, _, _ := unstructured.NestedString(body.Object, "spec", "type")
		if u == "" {
			return ChartSource{Unresolved: fmt.Sprintf("%s has no spec.url", sref)}
		}
		if typ == "oci" {
			return ChartSource{Remote: fetch.Ref{Kind: "oci", URL: strings.TrimSuffix(u, "/") + "/" + chart, Version: version},
				ValuesFiles: files, ignoreMissing: ignore}
		}
		return ChartSource{Remote: fetch.Ref{Kind: "http", URL: u, Chart: chart, Version: version}, ValuesFiles: files, ignoreMissing: ignore}
	case "GitRepository", "Bucket":
		root, ok := src(sref)
		if !ok {
			return ChartSource{Unresolved: fmt.Sprintf("chart %s is in %s, which is not this repository (map it in .tiergate.yaml sources)", chart, sref)}
		}
		return ChartSource{InRepo: true, root: root, Dir: fsys.CleanPath(path.Join(root, chart)), ValuesFiles: files, ignoreMissing: ignore,
			Strategy: values.String(spec, "reconcileStrategy"), Names: sref.String() + rootNote(root)}
	}
	return ChartSource{Unresolved: fmt.Sprintf("sourceRef kind %q is not a chart source", sref.Kind)}
}

// rootNote says which folder of the repository a source's artifact is: paths in it are
// relative to that folder.
func rootNote(root string) string {
	if root == "" || root == "." {
		return " (whose artifact is the repository root)"
	}
	return fmt.Sprintf(" (whose artifact is the repository folder %s, .tiergate.yaml sources)", root)
}

// ociChart resolves an OCIRepository chartRef: its spec.url and spec.ref, where digest
// wins over semver (its semverFilter read with it) over tag, and "latest" is the default
// (source-controller OCIRepositoryReconciler.getArtifactRef), with its layerSelector's
// media type, which says how tags read (fetch.Ref.OCIRepository). One the review builds from the tree
// (.tiergate.yaml sources) holds the chart at its folder.
func ociChart(sref graph.SourceRef, c *graph.Cluster, src func(graph.SourceRef) (string, bool)) ChartSource {
	if root, ok := src(sref); ok {
		return ChartSource{InRepo: true, root: root, Dir: root, Names: "spec.chartRef " + sref.String() + rootNote(root)}
	}
	body := SourceBody(c, sref)
	if body == nil {
		return ChartSource{Unresolved: fmt.Sprintf("chartRef %s is not in the cluster's graph", sref)}
	}
	u, _, _ := unstructured.NestedString(body.Object, "spec", "url")
	ref, _, _ := unstructured.NestedStringMap(body.Object, "spec", "ref")
	media, _, _ := unstructured.NestedString(body.Object, "spec", "layerSelector", "mediaType")
	r := fetch.Ref{Kind: "oci", URL: u, OCIRepository: true, LayerMediaType: media}
	switch {
	case ref["digest"] != "":
		r.Digest = ref["digest"]
	case ref["semver"] != "":
		r.Version, r.SemverFilter = ref["semver"], ref["semverFilter"]
	default:
		r.Tag = cmp.Or(ref["tag"], "latest")
	}
	return ChartSource{Remote: r, OCISource: true}
}

// SourceBody is the first rendered object of the Flux source s in c, nil when none.
func SourceBody(c *graph.Cluster, s graph.SourceRef) *unstructured.Unstructured {
	objs := c.Owners[graph.ObjectID{Group: sourceGroup, Kind: s.Kind, Namespace: s.Namespace, Name: s.Name}]
	if len(objs) == 0 {
		return nil
	}
	return objs[0].Body
}
