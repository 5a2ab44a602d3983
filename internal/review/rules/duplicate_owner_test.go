package rules

import "testing"

func TestDuplicateOwner(t *testing.T) {
	tiers := map[string]string{
		tierFile("a"): tier("a", "./a", true),
		tierFile("b"): tier("b", "./b", true),
		tierFile("c"): tier("c", "./c", true),
		"a/keep.yaml": configMap("default", "keep-a"),
		"b/keep.yaml": configMap("default", "keep-b"),
		"c/keep.yaml": configMap("default", "keep-c"),
	}
	dup := func(owner string) want {
		return want{
			Rule: "duplicate-owner", Severity: Error, Kustomization: "flux-system/" + owner,
			Object: "ConfigMap/default/shared", File: owner + "/shared.yaml", Line: 2,
			Msg:  []string{"ConfigMap/default/shared is emitted by both flux-system/a (a/shared.yaml:2) and flux-system/" + owner},
			Sugg: []string{"remove it from a/shared.yaml or from " + owner + "/shared.yaml"},
		}
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []want
	}{
		{
			name:  "one owner",
			files: merge(tiers, map[string]string{"a/shared.yaml": configMap("default", "shared")}),
		},
		{
			name: "two owners",
			files: merge(tiers, map[string]string{
				"a/shared.yaml": configMap("default", "shared"),
				"b/shared.yaml": configMap("default", "shared"),
			}),
			want: []want{dup("b")},
		},
		{
			name: "three owners",
			files: merge(tiers, map[string]string{
				"a/shared.yaml": configMap("default", "shared"),
				"b/shared.yaml": configMap("default", "shared"),
				"c/shared.yaml": configMap("default", "shared"),
			}),
			want: []want{dup("b"), dup("c")},
		},
		{
			// Both apply one ResourceSet: its ConfigMap is flux-operator's, applied once.
			name: "one ResourceSet applied by two",
			files: merge(tiers, map[string]string{
				"a/rs.yaml": resourceSet("shared"),
				"b/rs.yaml": resourceSet("shared"),
			}),
			want: []want{{
				Rule: "duplicate-owner", Severity: Error, Kustomization: "flux-system/b",
				Object: "ResourceSet.fluxcd.controlplane.io/flux-system/shared", File: "b/rs.yaml", Line: 2,
				Msg: []string{"ResourceSet.fluxcd.controlplane.io/flux-system/shared is emitted by both flux-system/a (a/rs.yaml:2) and flux-system/b"},
			}},
		},
		{
			// Two ResourceSets render one ConfigMap: their inventories fight over it.
			name: "two ResourceSets render one object",
			files: merge(tiers, map[string]string{
				"a/rs.yaml": resourceSet("rs-a"),
				"b/rs.yaml": resourceSet("rs-b"),
			}),
			want: []want{{
				Rule: "duplicate-owner", Severity: Error, Kustomization: "flux-system/b",
				Object: "ConfigMap/default/shared", File: "b/rs.yaml", Line: 2,
				Msg: []string{"ConfigMap/default/shared is emitted by both flux-system/a (a/rs.yaml:2) and flux-system/b"},
			}},
		},
		{
			name: "same name in another namespace",
			files: merge(tiers, map[string]string{
				"a/shared.yaml": configMap("default", "shared"),
				"b/shared.yaml": configMap("other", "shared"),
			}),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := renderTree(t, tc.files)
			checkBuilt(t, c)
			checkFindings(t, stateRule(t, "duplicate-owner")(c, nil, testEnv()), tc.want)
		})
	}
}

// resourceSet returns a ResourceSet flux-system/name with one inline resource, ConfigMap
// default/shared.
func resourceSet(name string) string {
	return obj("fluxcd.controlplane.io/v1", "ResourceSet", "flux-system", name,
		"spec:", "  resources:", "    - apiVersion: v1", "      kind: ConfigMap",
		"      metadata: {name: shared, namespace: default}", "      data: {key: value}")
}
