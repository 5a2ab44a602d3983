package pipeline

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm"
)

// helmRelease is a HelmRelease of the graph as helm-controller identifies the Helm release
// it manages: Release (name) and Storage (namespace), with the chart it installs.
type helmRelease struct {
	Ref     string // "namespace/name" of the HelmRelease object
	Release string
	Storage string
	Chart   string // "" when neither spec.chart nor spec.chartRef names a chart in the graph
}

// releaseIndex maps "storage namespace/release name" to the HelmReleases of g that manage
// that Helm release, one entry per distinct HelmRelease and chart (a HelmRelease rendered
// in several clusters or Kustomizations is one).
func releaseIndex(g *graph.Graph) map[string][]helmRelease {
	out := map[string][]helmRelease{}
	if g == nil {
		return out
	}
	seen := map[helmRelease]bool{}
	for _, c := range g.Clusters {
		sources := map[graph.ObjectID]*unstructured.Unstructured{}
		var hrs []*graph.Object
		for id, objs := range c.Owners {
			if len(objs) == 0 || objs[0].Body == nil {
				continue
			}
			switch {
			case id.Group == "helm.toolkit.fluxcd.io" && id.Kind == "HelmRelease":
				hrs = append(hrs, objs...)
			case id.Group == "source.toolkit.fluxcd.io" && (id.Kind == "OCIRepository" || id.Kind == "HelmChart"):
				sources[id] = objs[0].Body
			}
		}
		for _, o := range hrs {
			if o.Body == nil {
				continue
			}
			rel := helm.ReleaseOf(o.Body)
			hr := helmRelease{Ref: o.ID.Namespace + "/" + o.ID.Name, Release: rel.Name,
				Storage: rel.StorageNamespace, Chart: chartOf(o.Body, sources)}
			if seen[hr] {
				continue
			}
			seen[hr] = true
			key := hr.Storage + "/" + hr.Release
			out[key] = append(out[key], hr)
		}
	}
	for _, list := range out {
		sort.Slice(list, func(i, j int) bool {
			if list[i].Ref != list[j].Ref {
				return list[i].Ref < list[j].Ref
			}
			return list[i].Chart < list[j].Chart
		})
	}
	return out
}

// chartOf is the name of the chart hr installs: spec.chart.spec.chart, or for spec.chartRef
// the HelmChart's spec.chart or the OCIRepository's last spec.url path element (the
// chart's repository name), the source looked up in sources by the reference's namespace,
// defaulting to the HelmRelease's (CrossNamespaceSourceReference). "" when unknown.
func chartOf(hr *unstructured.Unstructured, sources map[graph.ObjectID]*unstructured.Unstructured) string {
	if ch, _, _ := unstructured.NestedString(hr.Object, "spec", "chart", "spec", "chart"); ch != "" {
		return ch
	}
	ref, ok, _ := unstructured.NestedStringMap(hr.Object, "spec", "chartRef")
	if !ok {
		return ""
	}
	ns := ref["namespace"]
	if ns == "" {
		ns = hr.GetNamespace()
	}
	src := sources[graph.ObjectID{Group: "source.toolkit.fluxcd.io", Kind: ref["kind"], Namespace: ns, Name: ref["name"]}]
	if src == nil {
		return ""
	}
	switch ref["kind"] {
	case "HelmChart":
		ch, _, _ := unstructured.NestedString(src.Object, "spec", "chart")
		return ch
	case "OCIRepository":
		u, _, _ := unstructured.NestedString(src.Object, "spec", "url")
		if !strings.HasPrefix(u, "oci://") {
			return ""
		}
		return path.Base(strings.TrimPrefix(u, "oci://"))
	}
	return ""
}

// matchRelease finds the chart of the helmfile release name in namespace: the chart of
// the one HelmRelease of idx that manages that Helm release, and from, that HelmRelease's
// "namespace/name". Else chart is "" and why says what was found.
func matchRelease(idx map[string][]helmRelease, name, namespace string) (chart, from, why string) {
	if namespace == "" {
		return "", "", "its namespace is not set in the helmfile"
	}
	list := idx[namespace+"/"+name]
	switch {
	case len(list) == 0:
		return "", "", fmt.Sprintf("no HelmRelease in the repository manages release %s in namespace %s", name, namespace)
	case len(list) > 1:
		var refs []string
		for _, hr := range list {
			refs = append(refs, fmt.Sprintf("%s (chart %s)", hr.Ref, orUnknown(hr.Chart)))
		}
		return "", "", fmt.Sprintf("%d HelmReleases manage release %s in namespace %s: %s", len(list), name, namespace, strings.Join(refs, ", "))
	case list[0].Chart == "":
		return "", "", fmt.Sprintf("HelmRelease %s manages it, but its chart is not known", list[0].Ref)
	}
	return list[0].Chart, list[0].Ref, ""
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
