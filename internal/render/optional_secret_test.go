package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestOptionalSubstituteFrom: an optional Secret absent from the repository may exist in
// the cluster, so its variables are unknown (partial, no undefined variable); an optional
// ConfigMap absent from the repository is skipped, and its variables stay undefined.
func TestOptionalSubstituteFrom(t *testing.T) {
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/apps.yaml": ks("apps", "./apps", "postBuild:", "  substitute:", "    ZONE: eu", "  substituteFrom:",
			"    - kind: Secret", "      name: cluster-secrets", "      optional: true"),
		"clusters/dev/web.yaml": ks("web", "./web", "postBuild:", "  substitute:", "    ZONE: eu", "  substituteFrom:",
			"    - kind: ConfigMap", "      name: overrides", "      optional: true"),
		"apps/app.yaml": cm("default", "app", "host: ${DOMAIN}", "zone: ${ZONE}"),
		"web/web.yaml":  cm("default", "web", "host: ${DOMAIN}", "zone: ${ZONE}"),
	}))
	c := render(t, dir, nil).Cluster("dev")
	got := map[string][]string{}
	for _, name := range []string{"apps", "web"} {
		k := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: name}]
		if k.Err != nil || len(k.Objects) != 1 {
			t.Fatalf("%s: err %v, %d objects", name, k.Err, len(k.Objects))
		}
		got[name] = k.Objects[0].Undefined
	}
	if d := cmp.Diff(map[string][]string{"apps": nil, "web": {"DOMAIN"}}, got); d != "" {
		t.Errorf("undefined (-want +got):\n%s", d)
	}
	want := []graph.Partial{{Kustomization: "flux-system/apps", Reason: "substituteFrom Secret/cluster-secrets (optional) not in the repository (created at runtime or out of band): its variables are not checked"}}
	if d := cmp.Diff(want, Partials(c)); d != "" {
		t.Errorf("partials (-want +got):\n%s", d)
	}
}
