package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestSubstituteFromLateSource: a substituteFrom ConfigMap whose own variables resolve only
// in a later round (settings reads cluster-vars, which a sibling emits) is read as it
// finally is, not as the first round built it: Flux reconciles app again on its interval
// and reads the settled ConfigMap.
func TestSubstituteFromLateSource(t *testing.T) {
	post := func(from string) string {
		return "postBuild:\n    substituteFrom:\n      - kind: ConfigMap\n        name: " + from
	}
	cm := func(name, key, value string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: flux-system\ndata:\n  " + key + ": " + value + "\n"
	}
	files := merge(bootstrap("dev"), map[string]string{
		"clusters/dev/tiers.yaml": ks("vars", "./vars") + "---\n" + ks("settings", "./settings", post("cluster-vars")) + "---\n" + ks("app", "./app", post("settings")),
		"vars/cm.yaml":            cm("cluster-vars", "CLUSTER", "dev"),
		"settings/cm.yaml":        cm("settings", "greeting", `"hello ${CLUSTER:=unknown}"`),
		"app/cm.yaml":             cm("app", "msg", `"${greeting:=none}"`),
	})
	c := render(t, tree(t, files), nil).Clusters[0]
	got := map[string]any{}
	for _, name := range []string{"settings", "app"} {
		for _, o := range c.Owners[graph.ObjectID{Kind: "ConfigMap", Namespace: "flux-system", Name: name}] {
			got[name] = o.Body.Object["data"]
		}
	}
	want := map[string]any{"settings": map[string]any{"greeting": "hello dev"}, "app": map[string]any{"msg": "hello dev"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("data (-want +got):\n%s", d)
	}
}
