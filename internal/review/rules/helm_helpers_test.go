package rules

import (
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// chart returns the files of in-repo chart charts/<name> (version 0.1.0) with the given
// files (chart-relative path → content, "templates/cm.yaml", "crds/w.yaml").
func chart(name string, files map[string]string) map[string]string {
	out := map[string]string{"charts/" + name + "/Chart.yaml": "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\n"}
	for p, data := range files {
		out["charts/"+name+"/"+p] = data
	}
	return out
}

// helmRelease returns HelmRelease namespace/name rendering in-repo chart charts/<chart>,
// `kind:` on line 2; spec lists further spec lines (indented two more spaces).
func helmRelease(namespace, name, chartName string, spec ...string) string {
	lines := []string{"spec:", "  interval: 10m", "  chart:", "    spec:", "      chart: ./charts/" + chartName,
		"      sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}"}
	for _, l := range spec {
		lines = append(lines, "  "+l)
	}
	return obj("helm.toolkit.fluxcd.io/v2", "HelmRelease", namespace, name, lines...)
}

// withAnnotation returns manifest m with metadata annotation key: value added after its
// name line (m made by obj, configMap, pvc...).
func withAnnotation(m, key, value string) string {
	i := strings.Index(m, "  name: ")
	j := i + strings.Index(m[i:], "\n") + 1
	return m[:j] + "  annotations:\n    " + key + ": " + value + "\n" + m[j:]
}

func cmID(namespace, name string) graph.ObjectID {
	return graph.ObjectID{Kind: "ConfigMap", Namespace: namespace, Name: name}
}
