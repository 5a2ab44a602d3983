package render

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// TestErrorLocations: a build error points at the line that causes it, in a file, with
// kustomize's chain kept in Details when the message is shortened (issue 15, item 5).
func TestErrorLocations(t *testing.T) {
	nameless := cm("", "plain") + "---\n# the second one\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels: {a: b}\ndata:\n  a: b\n"
	dupKey := cm("default", "plain") + "---\n" + cm("default", "second", "a: b", "a: c")
	cases := []struct {
		name  string
		files map[string]string
		want  *graph.BuildError
		// chain: Details is kustomize's chain, checked for its start only
		chain string
	}{
		{
			name:  "object without a name: its document start",
			files: map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"), "apps/cm.yaml": nameless},
			want: &graph.BuildError{File: "apps/cm.yaml", Line: 9, Message: "the ConfigMap at apps/cm.yaml:9 has no metadata.name",
				Details: "failed to decode Kubernetes YAML from apps/cm.yaml: missing metadata.name in object {{v1 ConfigMap} {{ } map[a:b] map[]}}"},
		},
		{
			name:  "duplicate key: the line in the file",
			files: map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"), "apps/cm.yaml": dupKey},
			want: &graph.BuildError{File: "apps/cm.yaml", Line: 16, Message: `key "a" is defined twice in one object, at apps/cm.yaml:16`,
				Details: "yaml: unmarshal errors:\n  line 8: mapping key \"a\" already defined at line 7"}, // kyaml counts from the document's "---"
		},
		{
			name: "nested kustomization: the entry of the nested file",
			files: map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"),
				"apps/kustomization.yaml":     "resources:\n  - sub\n",
				"apps/sub/kustomization.yaml": "resources:\n  - cm.yaml\n  - gone.yaml\n", "apps/sub/cm.yaml": cm("default", "a")},
			want: &graph.BuildError{File: "apps/sub/kustomization.yaml", Line: 3, Message: "apps/sub/kustomization.yaml:3 lists 'gone.yaml', which does not exist",
				Details: "accumulating resources: accumulation err='accumulating resources from 'sub': read apps/sub: is a directory': recursed accumulation of path 'apps/sub': " +
					"accumulating resources: accumulation err='accumulating resources from 'gone.yaml': open apps/sub/gone.yaml: no such file or directory': " +
					"must build at directory: not a valid directory: evalsymlink failure on 'apps/sub/gone.yaml' : lstat apps/sub/gone.yaml: no such file or directory"},
		},
		{
			name: "a listed manifest that is not YAML: its line, not the entry",
			files: map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"),
				"apps/kustomization.yaml": "resources:\n  - cm.yaml\n  - bad.yaml\n", "apps/cm.yaml": cm("default", "a"),
				"apps/bad.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: a\n data: b\n"},
			want: &graph.BuildError{File: "apps/bad.yaml", Line: 6, Message: "apps/bad.yaml:6 is not valid YAML: did not find expected key",
				Details: "accumulating resources: accumulating resources from 'bad.yaml': MalformedYAMLError: yaml: line 5: did not find expected key in File: bad.yaml"},
		},
		{
			name: "a nested manifest that is not YAML: counted from the file's start",
			files: map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"),
				"apps/kustomization.yaml": "resources:\n  - sub\n", "apps/sub/kustomization.yaml": "resources:\n  - bad.yaml\n",
				"apps/sub/bad.yaml": cm("default", "a") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n\tnamespace: a\n"},
			want: &graph.BuildError{File: "apps/sub/bad.yaml", Line: 12, Message: "apps/sub/bad.yaml:12 is not valid YAML: found a tab character that violates indentation",
				Details: "accumulating resources: accumulation err='accumulating resources from 'sub': read apps/sub: is a directory': recursed accumulation of path 'apps/sub': " +
					"accumulating resources: accumulating resources from 'bad.yaml': MalformedYAMLError: yaml: line 4: found a tab character that violates indentation in File: bad.yaml"},
		},
		{
			name: "a patch file that is not YAML: the patch file",
			files: map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"),
				"apps/kustomization.yaml": "resources:\n  - cm.yaml\npatches:\n  - path: p.yaml\n", "apps/cm.yaml": cm("default", "a"),
				"apps/p.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n"},
			want: &graph.BuildError{File: "apps/p.yaml", Line: 4, Message: "apps/p.yaml:4 is not valid YAML: did not find expected ',' or ']'",
				Details: "trouble configuring builtin PatchTransformer with config: `\npath: p.yaml\n`: unable to parse SM or JSON patch from [path: \"p.yaml\"]"},
		},
		{
			name:  "the kustomization.yaml itself is not YAML: its own line",
			files: map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"), "apps/kustomization.yaml": "resources:\n  - cm.yaml\n bad: [\n", "apps/cm.yaml": cm("default", "a")},
			want: &graph.BuildError{File: "apps/kustomization.yaml", Line: 3, Message: "apps/kustomization.yaml:3 is not valid YAML: did not find expected key",
				Details: "error converting YAML to JSON: yaml: line 2: did not find expected key"},
		},
		{
			name: "a folder without kustomization.yaml: the targetNamespace line that renames",
			files: map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps", "targetNamespace: web"),
				"apps/ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n"},
			want: &graph.BuildError{File: "clusters/dev/apps.yaml", Line: 13,
				Message: "the namespace transformer (targetNamespace, or a kustomization's namespace:) makes Namespace a and b one object named web"},
			chain: "namespace transformation produces ID conflict: ",
		},
		{
			name: "targetNamespace merges a Namespace a base renamed already: the names as written, at targetNamespace",
			files: map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps", "targetNamespace: a"),
				"apps/kustomization.yaml": "resources:\n  - base\n  - b.yaml\n", "apps/b.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n",
				"apps/base/kustomization.yaml": "namespace: a\nresources:\n  - ns.yaml\n", "apps/base/ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n"},
			want: &graph.BuildError{File: "clusters/dev/apps.yaml", Line: 13,
				Message: "the namespace transformer (targetNamespace, or a kustomization's namespace:) makes Namespace a and b one object named a"},
			chain: "namespace transformation produces ID conflict: ",
		},
		{
			name: "no targetNamespace: the namespace: line of the kustomization.yaml",
			files: map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"),
				"apps/kustomization.yaml": "resources:\n  - ns.yaml\nnamespace: web\n",
				"apps/ns.yaml":            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n"},
			want: &graph.BuildError{File: "apps/kustomization.yaml", Line: 3,
				Message: "the namespace transformer (targetNamespace, or a kustomization's namespace:) makes Namespace a and b one object named web"},
			chain: "namespace transformation produces ID conflict: ",
		},
		{
			name: "invalid variable name: the ConfigMap key",
			files: map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps", "postBuild:", "  substituteFrom:", "    - kind: ConfigMap", "      name: vars"),
				"clusters/dev/vars.yaml": cm("flux-system", "vars", "domain: example.org", "cluster-name: dev"), "apps/cm.yaml": cm("default", "a")},
			want: &graph.BuildError{File: "clusters/dev/vars.yaml", Line: 8,
				Message: `key "cluster-name" of substituteFrom ConfigMap/vars is not a valid postBuild variable name (letters, digits and '_', not starting with a digit): Flux's substitution fails with "'cluster-name' var name is invalid, must match '^[_[:alpha:]][_[:alpha:][:digit:]]*$'"`},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := render(t, tree(t, merge(bootstrap("dev"), tc.files)), nil).Cluster("dev")
			got := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].Err
			if got == nil {
				t.Fatal("apps builds")
			}
			if tc.chain != "" && strings.HasPrefix(got.Details, tc.chain) {
				tc.want.Details = got.Details
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
		})
	}
}

// TestGeneratedObjectLine: a generated ConfigMap points at its generator entry.
func TestGeneratedObjectLine(t *testing.T) {
	c := render(t, tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/apps.yaml":  ks("apps", "./apps"),
		"apps/kustomization.yaml": "namespace: web\nconfigMapGenerator:\n  - name: first\n    literals: [a=b]\n  - name: settings\n    files: [settings.env]\nsecretGenerator:\n  - name: settings\n    literals: [c=d]\n",
		"apps/settings.env":       "url=https://example.org\n",
	})), nil).Cluster("dev")
	var got []string
	for _, o := range c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].Objects {
		got = append(got, o.ID.Kind+"/"+o.ID.Name[:len(o.ID.Name)-11]+" "+o.File+":"+itoa(o.Line))
	}
	want := []string{"ConfigMap/first apps/kustomization.yaml:3", "ConfigMap/settings apps/kustomization.yaml:5", "Secret/settings apps/kustomization.yaml:8"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("objects (-want +got):\n%s", d)
	}
}
