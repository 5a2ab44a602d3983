package discover

import (
	"testing"

	"github.com/tiergate/tiergate/internal/render/index"
)

// TestNotBoot: notBoot is true only where rootOf finds the document no bootstrap root
// (a path elsewhere, quoted or plain with a "/"), and false, unsure, for a path that is
// the file's folder, a parent, empty, null, a plain word YAML 1.1 may read as a bool, an
// alias, a merge key or a repeated key.
func TestNotBoot(t *testing.T) {
	const file = "clusters/dev/flux-system/ks.yaml"
	head := "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n"
	ref := "  sourceRef: {kind: GitRepository, name: flux-system}\n  interval: 10m\n  prune: true\n"
	tests := []struct {
		name, spec string
		want       bool
	}{
		{"elsewhere", "spec:\n  path: ./kubernetes/apps\n" + ref, true},
		{"elsewhere, quoted", "spec:\n  path: \"kubernetes\"\n" + ref, true},
		{"a sibling folder", "spec:\n  path: ./clusters/dev/apps\n" + ref, true},
		{"its folder", "spec:\n  path: ./clusters/dev/flux-system\n" + ref, false},
		{"a parent", "spec:\n  path: ./clusters/dev\n" + ref, false},
		{"the root", "spec:\n  path: ./\n" + ref, false},
		{"no path", "spec:\n" + ref, false},
		{"null", "spec:\n  path: null\n" + ref, false},
		{"tagged null", "spec:\n  path: !!null ./x/y\n" + ref, false},
		{"a plain word", "spec:\n  path: yes\n" + ref, false},
		{"an alias", "x: &p ./kubernetes/apps\nspec:\n  path: *p\n" + ref, false},
		{"a merge key", "x: &s {path: ./clusters/dev}\nspec:\n  <<: *s\n  path: ./kubernetes/apps\n" + ref, false},
		{"a repeated key", "spec:\n  path: ./kubernetes/apps\n  path: ./\n" + ref, false},
		{"a repeated spec", "spec:\n  path: ./kubernetes/apps\n" + ref + "spec:\n  path: ./\n" + ref, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := index.Parse([]byte(head + tt.spec))
			if len(docs) != 1 {
				t.Fatalf("%d documents", len(docs))
			}
			got := notBoot(docs[0], file)
			if got != tt.want {
				t.Errorf("notBoot = %v, want %v", got, tt.want)
			}
			if _, isBoot, ok := rootOf(docs[0], file); got && ok && isBoot {
				t.Errorf("notBoot is true for a bootstrap root")
			}
		})
	}
}
