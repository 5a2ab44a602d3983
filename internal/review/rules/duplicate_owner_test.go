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
