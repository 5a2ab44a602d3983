package helm

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRenderEmpty: a chart that renders nothing (a condition off, only NOTES.txt) is an
// empty result, not an error of the post-render passes.
func TestRenderEmpty(t *testing.T) {
	files := map[string]string{
		"Chart.yaml":          "apiVersion: v2\nname: empty\nversion: 0.1.0\n",
		"templates/NOTES.txt": "nothing here\n",
		"templates/cm.yaml":   "{{- if .Values.enabled }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n{{- end }}\n",
	}
	res, err := Render(context.Background(), Request{Chart: loadChart(t, files), HelmRelease: hrObj(t, "  chart: {}\n")})
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	if diff := cmp.Diff(&Result{}, res); diff != "" {
		t.Errorf("Render (-want +got):\n%s", diff)
	}
}

// TestRenderList: a v1 List is expanded into its items by the post-render ResMap, each
// keeping the template it came from.
func TestRenderList(t *testing.T) {
	files := map[string]string{
		"Chart.yaml":        "apiVersion: v2\nname: list\nversion: 0.1.0\n",
		"templates/cm.yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n",
	}
	res, err := Render(context.Background(), Request{Chart: loadChart(t, files), HelmRelease: hrObj(t, "  chart: {}\n")})
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	cm := func(name string) Doc {
		return Doc{Template: "list/templates/cm.yaml", Object: obj(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "+name+"\n  labels:\n"+origin)}
	}
	if diff := cmp.Diff(&Result{Docs: []Doc{cm("a"), cm("b")}}, res); diff != "" {
		t.Errorf("Render (-want +got):\n%s", diff)
	}
}

// TestRenderHostile: a chart from a PR reads no host file and no environment.
func TestRenderHostile(t *testing.T) {
	t.Setenv("TIERGATE_HOSTILE_PROBE", "leaked")
	files := funcsChart(`  files: {{ .Files.Get "../../../../etc/hostname" | quote }}
  abs: {{ .Files.Get "/etc/hostname" | quote }}
  glob: {{ .Files.Glob "../**" | len | quote }}
`)
	res, err := Render(context.Background(), Request{Chart: loadChart(t, files), HelmRelease: hrObj(t, "  chart: {}\n")})
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	if diff := cmp.Diff(map[string]any{"files": "", "abs": "", "glob": "0"}, res.Docs[0].Object["data"]); diff != "" {
		t.Errorf("data (-want +got):\n%s", diff)
	}
	_, err = Render(context.Background(), Request{Chart: loadChart(t, funcsChart(`  env: {{ env "TIERGATE_HOSTILE_PROBE" }}`)), HelmRelease: hrObj(t, "  chart: {}\n")})
	const want = `render HelmRelease flux-system/web (chart funcs 0.1.0): parse error at (funcs/templates/data.yaml:6): function "env" not defined`
	if err == nil || err.Error() != want {
		t.Errorf("env: got %v, want %s", err, want)
	}
}
