package helm

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// capsChart branches on .Capabilities like app-template's _route.tpl and pod spec do.
func capsChart() map[string]string {
	return map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: caps\nversion: 0.1.0\n",
		"templates/route.yaml": `{{- $v := "v1alpha2" }}
{{- if .Capabilities.APIVersions.Has "gateway.networking.k8s.io/v1/HTTPRoute" }}{{ $v = "v1" }}{{ end -}}
apiVersion: gateway.networking.k8s.io/{{ $v }}
kind: HTTPRoute
metadata:
  name: web
  annotations:
    kube: {{ .Capabilities.KubeVersion.Version }}
    minor: "{{ .Capabilities.KubeVersion.Minor }}"
    sidecars: "{{ semverCompare ">=1.29-0" .Capabilities.KubeVersion.Version }}"
    batch: "{{ .Capabilities.APIVersions.Has "batch/v1" }}"
`,
	}
}

func TestRenderCapabilities(t *testing.T) {
	for _, tc := range []struct {
		name, kube  string
		apiVersions []string
		want        string
	}{
		{"defaults", "", nil, "apiVersion: gateway.networking.k8s.io/v1alpha2\nkind: HTTPRoute\nmetadata:\n  name: web\n  annotations:\n    kube: v1.33.0\n    minor: \"33\"\n    sidecars: \"true\"\n    batch: \"true\"\n  labels:\n" + origin},
		{"old cluster, CRD kind known", "v1.28.4", []string{"gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1/HTTPRoute"},
			"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web\n  annotations:\n    kube: v1.28.4\n    minor: \"28\"\n    sidecars: \"false\"\n    batch: \"true\"\n  labels:\n" + origin},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Render(context.Background(), Request{Chart: loadChart(t, capsChart()), HelmRelease: hrObj(t, "  chart: {}\n"),
				KubeVersion: tc.kube, APIVersions: tc.apiVersions})
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			want := &Result{Docs: []Doc{{Template: "caps/templates/route.yaml", Object: obj(t, tc.want)}}}
			if diff := cmp.Diff(want, res); diff != "" {
				t.Errorf("Render (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := Render(context.Background(), Request{Chart: loadChart(t, capsChart()), HelmRelease: hrObj(t, "  chart: {}\n"), KubeVersion: "latest"}); err == nil ||
		err.Error() != `render HelmRelease flux-system/web (chart caps 0.1.0): kube version "latest": could not parse "latest" as version` {
		t.Errorf("bad kube version: %v", err)
	}
}
