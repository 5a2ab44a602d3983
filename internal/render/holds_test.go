package render

import (
	"context"
	"testing"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestHoldsManifests: a folder holds manifests when a YAML file is in it at any depth,
// whether or not a Kustomization builds it; a folder with only other files, or none, a
// file and a name prefix of a folder do not. The folders are gathered once per snapshot.
func TestHoldsManifests(t *testing.T) {
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"apps/deep/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n",
		"docs/README.md":    "# not a manifest\n",
	}))
	g, err := Render(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Cluster("dev")
	for dir, want := range map[string]bool{"./apps": true, "apps/deep/": true, "": true, "./docs": false, "gone": false, "app": false, "/apps": true, "apps/deep/cm.yaml": false, "apps/deep/x": false} {
		if got := c.HoldsManifests(dir); got != want {
			t.Errorf("HoldsManifests(%q) = %t, want %t", dir, got, want)
		}
	}
	if (&graph.Cluster{}).HoldsManifests("apps") {
		t.Error("a cluster without an artifact holds nothing")
	}
}
