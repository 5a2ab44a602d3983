package render

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
)

func objFromYAML(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

const rsTenants = `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: tenants
  namespace: flux-system
spec:
  commonMetadata:
    labels:
      team: platform
  inputs:
    - tenant: team-a
      replicas: 2
    - tenant: team-b
      replicas: 3
  resourcesTemplate: |
    apiVersion: v1
    kind: Namespace
    metadata:
      name: << inputs.tenant >>
    ---
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: << inputs.tenant | upper >>-<< inputs.replicas >>
      namespace: << inputs.tenant >>
    data:
      provider: << inputs.provider.kind >>/<< inputs.provider.name >>
      slug: << slugify "Hello World!" >>
      yaml: |
        << toYaml (dict "a" 1) | nindent 4 >>
`

// TestRenderResourceSet checks the objects flux-operator's builder makes, against its
// semantics: one rendering per input set, owner labels and commonMetadata set, the
// provider field, Static ids, Permute scoping and ids, exclusion and deduplication.
func TestRenderResourceSet(t *testing.T) {
	static := objFromYAML(t, `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSetInputProvider
metadata:
  name: apps
  namespace: flux-system
  labels: {pick: "yes"}
spec:
  type: Static
  defaultValues:
    app: podinfo
`)
	cases := []struct {
		name      string
		rset      string
		providers []*unstructured.Unstructured
		want      []string // objects as YAML
	}{
		{
			name: "inline inputs, template with functions",
			rset: rsTenants,
			want: []string{
				"apiVersion: v1\nkind: Namespace\nmetadata:\n  labels:\n    resourceset.fluxcd.controlplane.io/name: tenants\n    resourceset.fluxcd.controlplane.io/namespace: flux-system\n    team: platform\n  name: team-a\n",
				"apiVersion: v1\ndata:\n  provider: ResourceSet/tenants\n  slug: hello-world\n  yaml: |2\n\n    a: 1\nkind: ConfigMap\nmetadata:\n  labels:\n    resourceset.fluxcd.controlplane.io/name: tenants\n    resourceset.fluxcd.controlplane.io/namespace: flux-system\n    team: platform\n  name: TEAM-A-2\n  namespace: team-a\n",
				"apiVersion: v1\nkind: Namespace\nmetadata:\n  labels:\n    resourceset.fluxcd.controlplane.io/name: tenants\n    resourceset.fluxcd.controlplane.io/namespace: flux-system\n    team: platform\n  name: team-b\n",
				"apiVersion: v1\ndata:\n  provider: ResourceSet/tenants\n  slug: hello-world\n  yaml: |2\n\n    a: 1\nkind: ConfigMap\nmetadata:\n  labels:\n    resourceset.fluxcd.controlplane.io/name: tenants\n    resourceset.fluxcd.controlplane.io/namespace: flux-system\n    team: platform\n  name: TEAM-B-3\n  namespace: team-b\n",
			},
		},
		{
			name: "static provider by selector, flatten, resources dedup and exclusion",
			rset: `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata: {name: rs, namespace: flux-system}
spec:
  inputs:
    - {app: skip, id: "1"}
  inputsFrom:
    - kind: ResourceSetInputProvider
      selector: {matchLabels: {pick: "yes"}}
  resources:
    - apiVersion: v1
      kind: ConfigMap
      metadata:
        name: << inputs.app >>
        namespace: apps
        annotations:
          fluxcd.controlplane.io/reconcile: << if eq inputs.app "skip" >>disabled<< else >>enabled<< end >>
      data:
        id: "<< inputs.id >>" # JSON to YAML drops the quotes, as in flux-operator: an int
    - apiVersion: v1
      kind: ConfigMap
      metadata: {name: shared, namespace: apps}
`,
			providers: []*unstructured.Unstructured{static},
			want: []string{
				"apiVersion: v1\ndata:\n  id: 69927349\nkind: ConfigMap\nmetadata:\n  annotations:\n    fluxcd.controlplane.io/reconcile: enabled\n  labels:\n    resourceset.fluxcd.controlplane.io/name: rs\n    resourceset.fluxcd.controlplane.io/namespace: flux-system\n  name: podinfo\n  namespace: apps\n",
				"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels:\n    resourceset.fluxcd.controlplane.io/name: rs\n    resourceset.fluxcd.controlplane.io/namespace: flux-system\n  name: shared\n  namespace: apps\n",
			},
		},
		{
			name: "permute scopes each set under its provider and ids the choice",
			rset: `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata: {name: tenants, namespace: flux-system}
spec:
  inputStrategy: {name: Permute}
  inputs:
    - name: a
    - name: b
  inputsFrom:
    - name: apps
  resourcesTemplate: |
    apiVersion: v1
    kind: ConfigMap
    metadata:
      name: << inputs.tenants.name >>-<< inputs.apps.app >>
      namespace: apps
    data:
      id: "<< inputs.id >>"
`,
			providers: []*unstructured.Unstructured{static},
			want: []string{
				"apiVersion: v1\ndata:\n  id: \"871695803\"\nkind: ConfigMap\nmetadata:\n  labels:\n    resourceset.fluxcd.controlplane.io/name: tenants\n    resourceset.fluxcd.controlplane.io/namespace: flux-system\n  name: a-podinfo\n  namespace: apps\n",
				"apiVersion: v1\ndata:\n  id: \"872220092\"\nkind: ConfigMap\nmetadata:\n  labels:\n    resourceset.fluxcd.controlplane.io/name: tenants\n    resourceset.fluxcd.controlplane.io/namespace: flux-system\n  name: b-podinfo\n  namespace: apps\n",
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs, skipped, err := renderResourceSet(objFromYAML(t, tc.rset), tc.providers, 1<<20)
			if err != nil || skipped != "" {
				t.Fatalf("skipped %q, err %v", skipped, err)
			}
			var got []string
			for _, o := range objs {
				b, _ := yaml.Marshal(o.Object)
				got = append(got, string(b))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("objects (-want +got):\n%s", d)
			}
		})
	}
}

// TestRenderResourceSetRefused checks what is not rendered: inputs from a live service or
// absent from the repository, and templates that fail or exceed the bounds.
func TestRenderResourceSetRefused(t *testing.T) {
	pr := objFromYAML(t, "apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSetInputProvider\nmetadata: {name: prs, namespace: flux-system}\nspec: {type: GitHubPullRequest, url: https://github.com/example/app}\n")
	rs := func(spec string) string {
		return "apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSet\nmetadata: {name: rs, namespace: flux-system}\nspec:\n" + spec
	}
	tmpl := func(body string) string {
		return rs("  inputs: [{x: one}]\n  resourcesTemplate: |\n    " + body + "\n")
	}
	cases := []struct {
		name, rset, skipped, field, err string
	}{
		{name: "github pull requests", rset: rs("  inputsFrom: [{name: prs}]\n  resourcesTemplate: 'x'\n"),
			skipped: "ResourceSetInputProvider flux-system/prs has type GitHubPullRequest, whose inputs flux-operator reads from a live service"},
		{name: "provider not in the repository", rset: rs("  inputsFrom: [{name: gone}]\n  resourcesTemplate: 'x'\n"),
			skipped: "ResourceSetInputProvider flux-system/gone is not in the repository"},
		{name: "missing key", rset: tmpl("<< inputs.y >>"), field: "resourcesTemplate",
			err: `failed to build resources: failed to execute template: template: resourceset:1:3: executing "resourceset" at <inputs>: map has no entry for key "y"`},
		{name: "env is not a function", rset: tmpl(`<< env "HOME" >>`), field: "resourcesTemplate",
			err: `failed to build resources: failed to parse template: template: resourceset:1: function "env" not defined`},
		{name: "until is bounded", rset: tmpl("<< range until 100000000 >>x<< end >>"), field: "resourcesTemplate",
			err: `failed to build resources: failed to execute template: template: resourceset:1:9: executing "resourceset" at <until 100000000>: error calling until: until 100000000 is over tiergate's limit of 10000`},
		{name: "output is bounded", rset: tmpl("<< range until 9000 >>xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx<< end >>"), field: "resourcesTemplate",
			err: "failed to build resources: failed to execute template: template output exceeds tiergate's limit: one ResourceSet writes at most MaxBuildBytes"},
		{name: "output is bounded across input sets", rset: rs("  inputs: [{x: one}, {x: two}]\n  resourcesTemplate: |\n    << range until 5000 >>\n    #xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n    << end >>\n"), field: "resourcesTemplate",
			err: "failed to build resources: failed to execute template: template output exceeds tiergate's limit: one ResourceSet writes at most MaxBuildBytes"},
		{name: "not an object", rset: tmpl("kind: ConfigMap"), field: "resourcesTemplate",
			err: `failed to build resources: failed to read object: apiVersion and kind are required in "kind: ConfigMap"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs, skipped, err := renderResourceSet(objFromYAML(t, tc.rset), []*unstructured.Unstructured{pr}, 1<<20)
			field, msg := "", ""
			if err != nil {
				field, msg = err.field, err.Error()
			}
			if d := cmp.Diff([]string{tc.skipped, tc.field, tc.err}, []string{skipped, field, msg}); d != "" || objs != nil {
				t.Errorf("objects %v, (-want +got):\n%s", objs, d)
			}
		})
	}
}

// TestResourceSetInGraph checks that the Kustomizations a ResourceSet renders are built in
// turn, owned by the Kustomization that applies the ResourceSet, and that a ResourceSet on a
// live provider makes that Kustomization partial.
func TestResourceSetInGraph(t *testing.T) {
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/tenants.yaml": ks("tenants", "./tenants"),
		"tenants/rset.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: tenants
  namespace: flux-system
spec:
  inputs:
    - tenant: team-a
  resourcesTemplate: |
    apiVersion: kustomize.toolkit.fluxcd.io/v1
    kind: Kustomization
    metadata:
      name: << inputs.tenant >>
      namespace: flux-system
    spec:
      interval: 10m
      path: ./apps/<< inputs.tenant >>
      prune: true
      sourceRef: {kind: GitRepository, name: flux-system}
---
apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: previews
  namespace: flux-system
spec:
  inputsFrom: [{name: prs}]
  resourcesTemplate: 'x'
---
apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSetInputProvider
metadata: {name: prs, namespace: flux-system}
spec: {type: GitHubPullRequest, url: "https://github.com/example/app"}
`,
		"apps/team-a/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app, namespace: team-a}\n",
	}))
	g, err := Render(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := g.Cluster("dev")
	var got []string
	for _, ref := range c.Order {
		k := c.Kustomizations[ref]
		for _, o := range k.Objects {
			got = append(got, strings.Join([]string{ref.String(), o.ID.String(), o.ResourceSet, o.File}, " "))
		}
	}
	want := []string{
		"flux-system/flux-system GitRepository.source.toolkit.fluxcd.io/flux-system/flux-system  clusters/dev/flux-system/gotk-sync.yaml",
		"flux-system/flux-system Kustomization.kustomize.toolkit.fluxcd.io/flux-system/flux-system  clusters/dev/flux-system/gotk-sync.yaml",
		"flux-system/flux-system Kustomization.kustomize.toolkit.fluxcd.io/flux-system/tenants  clusters/dev/tenants.yaml",
		"flux-system/tenants ResourceSet.fluxcd.controlplane.io/flux-system/tenants  tenants/rset.yaml",
		"flux-system/tenants ResourceSet.fluxcd.controlplane.io/flux-system/previews  tenants/rset.yaml",
		"flux-system/tenants ResourceSetInputProvider.fluxcd.controlplane.io/flux-system/prs  tenants/rset.yaml",
		"flux-system/tenants Kustomization.kustomize.toolkit.fluxcd.io/flux-system/team-a flux-system/tenants tenants/rset.yaml",
		"flux-system/team-a ConfigMap/team-a/app  apps/team-a/cm.yaml",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("objects (-want +got):\n%s", d)
	}
	wantPartial := []graph.Partial{{Kustomization: "flux-system/tenants", Reason: "ResourceSet flux-system/previews (tenants/rset.yaml:22) not reviewed: ResourceSetInputProvider flux-system/prs has type GitHubPullRequest, whose inputs flux-operator reads from a live service"}}
	if d := cmp.Diff(wantPartial, Partials(c)); d != "" {
		t.Errorf("partials (-want +got):\n%s", d)
	}
}
