package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tiergate/tiergate/internal/render/graph"
)

func TestMoves(t *testing.T) {
	tiers := map[string]string{
		tierFile("a"): tier("a", "./a", true),
		tierFile("b"): tier("b", "./b", true),
		tierFile("c"): tier("c", "./c", true),
		"a/keep.yaml": configMap("default", "keep-a"),
		"b/keep.yaml": configMap("default", "keep-b"),
		"c/keep.yaml": configMap("default", "keep-c"),
	}
	cm := graph.ObjectID{Kind: "ConfigMap", Namespace: "default", Name: "cm"}
	ns := graph.ObjectID{Kind: "Namespace", Name: "data"}
	cases := []struct {
		name       string
		base, head map[string]string
		want       []Move
	}{
		{
			name: "two objects move in head build order",
			base: merge(tiers, map[string]string{"a/cm.yaml": configMap("default", "cm"), "c/ns.yaml": namespaceObj("data")}),
			head: merge(tiers, map[string]string{"c/cm.yaml": configMap("default", "cm"), "b/ns.yaml": namespaceObj("data")}),
			want: []Move{
				{Cluster: "dev", Object: ns, From: "flux-system/c", To: "flux-system/b"},
				{Cluster: "dev", Object: cm, From: "flux-system/a", To: "flux-system/c"},
			},
		},
		{
			name: "unchanged",
			base: merge(tiers, map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			head: merge(tiers, map[string]string{"a/cm.yaml": configMap("default", "cm")}),
		},
		{
			name: "added and removed objects are not moves",
			base: merge(tiers, map[string]string{"a/cm.yaml": configMap("default", "cm")}),
			head: merge(tiers, map[string]string{"b/ns.yaml": namespaceObj("data")}),
		},
		{
			name: "still emitted by the base owner is a duplicate not a move",
			base: merge(tiers, map[string]string{"b/cm.yaml": configMap("default", "cm")}),
			head: merge(tiers, map[string]string{"a/cm.yaml": configMap("default", "cm"), "b/cm.yaml": configMap("default", "cm")}),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base, head := renderBuilt(t, tc.base, tc.head)
			got := Moves(base, head)
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreUnexported(Move{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Moves (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("nil cluster", func(t *testing.T) {
		if got := Moves(nil, nil); got != nil {
			t.Errorf("Moves(nil, nil) = %v, want nil", got)
		}
	})
}
