package render

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/schemalock"
)

func cacheFleet() map[string]string {
	return merge(bootstrap("dev"), map[string]string{
		"clusters/dev/apps.yaml":  ks("apps", "./apps"),
		"clusters/dev/infra.yaml": ks("infra", "./infra"),
		"apps/kustomization.yaml": "resources: [../base, a.yaml]\n",
		"apps/a.yaml":             cm("", "a"),
		"base/kustomization.yaml": "resources: [c.yaml]\n",
		"base/c.yaml":             cm("", "c"),
		"infra/ns.yaml":           "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: infra\n",
		"README.md":               "fleet\n",
	})
}

// TestCacheReusesExactlyUnchangedBuilds renders a tree, then edited copies of it with the
// same cache: only the builds whose inputs an edit touches are built again, and every
// render equals a full rebuild.
func TestCacheReusesExactlyUnchangedBuilds(t *testing.T) {
	cases := []struct {
		name         string
		edit         map[string]string // path → content; "" removes
		hits, misses int64             // flux-system, apps, infra
	}{
		{"no change", nil, 3, 0},
		{"file no build reads", map[string]string{"README.md": "edited\n"}, 3, 0},
		{"file of a base", map[string]string{"base/c.yaml": cm("", "c", "k: edited")}, 2, 1},
		{"manifest added to a generated folder", map[string]string{"infra/more.yaml": cm("infra", "more")}, 2, 1},
		{"non-manifest added to a generated folder", map[string]string{"infra/notes.txt": "x"}, 3, 0},
		{"kustomization.yaml of a base", map[string]string{"base/kustomization.yaml": "resources: [c.yaml]\nnamePrefix: x-\n"}, 2, 1},
		{"Kustomization spec", map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps", "targetNamespace: web")}, 1, 2},
		{"file removed", map[string]string{"apps/a.yaml": "", "apps/kustomization.yaml": "resources: [../base]\n"}, 2, 1},
		// What only fluxcd/pkg/kustomize's generator reads (its output is reused too).
		{"kustomization.yaml added to a generated folder", map[string]string{"infra/more.yaml": cm("infra", "more"), "infra/kustomization.yaml": "resources: [more.yaml]\n"}, 2, 1},
		{"manifest of a generated folder no longer parses", map[string]string{"infra/ns.yaml": "kind: [\n"}, 2, 0},
		{"manifest of a generated folder in a new subfolder", map[string]string{"infra/sub/cm.yaml": cm("infra", "sub")}, 2, 1},
		{"component appears", map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps", "components: [../comp]\n  ignoreMissingComponents: true"), "comp/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nnamePrefix: comp-\n"}, 2, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cache := NewCache(0)
			files := cacheFleet()
			if strings.HasPrefix(tc.name, "component") {
				// The base already lists the component, missing: only its existence changes.
				files["clusters/dev/apps.yaml"] = tc.edit["clusters/dev/apps.yaml"]
			}
			base := tree(t, files)
			if _, err := Render(context.Background(), base, Options{Cache: cache}); err != nil {
				t.Fatal(err)
			}
			if got := cache.Stats(); got.Misses != 3 || got.Hits != 0 {
				t.Fatalf("first render: %+v, want 3 misses", got)
			}
			for p, c := range tc.edit {
				if c == "" {
					delete(files, p)
				} else {
					files[p] = c
				}
			}
			head := tree(t, files)
			got, err := Render(context.Background(), head, Options{Cache: cache})
			if err != nil {
				t.Fatal(err)
			}
			st := cache.Stats()
			if st.Hits != tc.hits || st.Misses-3 != tc.misses {
				t.Errorf("hits %d misses %d, want %d and %d", st.Hits, st.Misses-3, tc.hits, tc.misses)
			}
			want, err := Render(context.Background(), head, Options{ExactBuild: true})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(objects(want.Cluster("dev")), objects(got.Cluster("dev"))); d != "" {
				t.Errorf("reused render differs from a rebuild (-want +got):\n%s", d)
			}
		})
	}
}

// TestKustomizeBuildIsolatesOpenAPI: a build with a custom OpenAPI schema (a list merge key
// for a custom kind) must not leak the schema into the next build, as
// fluxcd/pkg/kustomize.Build guarantees by resetting it.
var (
	openAPIKind  = "apiVersion: example.com/v1alpha1\nkind: MyKind\nmetadata:\n  name: x\n  namespace: default\nspec:\n  items:\n  - name: a\n    value: \"1\"\n"
	openAPIPatch = `patches:
- patch: |
    apiVersion: example.com/v1alpha1
    kind: MyKind
    metadata:
      name: x
      namespace: default
    spec:
      items:
      - name: b
        value: "2"
`
	openAPISchema = `{"definitions": {
  "com.example.v1alpha1.MyKind": {"type": "object",
    "x-kubernetes-group-version-kind": [{"group": "example.com", "kind": "MyKind", "version": "v1alpha1"}],
    "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
      "metadata": {"type": "object"},
      "spec": {"type": "object", "properties": {"items": {"type": "array",
        "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge",
        "items": {"$ref": "#/definitions/com.example.v1alpha1.Item"}}}}}},
  "com.example.v1alpha1.Item": {"type": "object", "properties": {"name": {"type": "string"}, "value": {"type": "string"}}}}}`
)

func TestKustomizeBuildIsolatesOpenAPI(t *testing.T) {
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/a.yaml":  ks("a-openapi", "./a"),
		"clusters/dev/b.yaml":  ks("b-plain", "./b"),
		"a/kustomization.yaml": "resources: [kind.yaml]\nopenapi:\n  path: schema.json\n" + openAPIPatch,
		"a/kind.yaml":          openAPIKind,
		"a/schema.json":        openAPISchema,
		"b/kustomization.yaml": "resources: [kind.yaml]\n" + openAPIPatch,
		"b/kind.yaml":          openAPIKind,
	}))
	items := func(g *graph.Graph, name string) []any {
		o := g.Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: name}].Objects[0]
		v, _, _ := unstructuredSlice(o.Body.Object, "spec", "items")
		return v
	}
	merged := []any{map[string]any{"name": "b", "value": "2"}, map[string]any{"name": "a", "value": "1"}}
	replaced := []any{map[string]any{"name": "b", "value": "2"}}
	for _, exact := range []bool{true, false} {
		for i := 0; i < 2; i++ { // the second time, the schema state is what the first left
			g, err := Render(context.Background(), dir, Options{ExactBuild: exact, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(merged, items(g, "a-openapi")); d != "" {
				t.Errorf("exact=%v: a-openapi items (-want +got):\n%s", exact, d)
			}
			if d := cmp.Diff(replaced, items(g, "b-plain")); d != "" {
				t.Errorf("exact=%v: b-plain items (-want +got):\n%s", exact, d)
			}
		}
	}
}

// svc and svcPatch: a Service and a strategic-merge patch of a port of the same name and
// another number. The builtin schema merges ports by port: two ports. Without it kyaml
// takes "name" as the key: one port, 8080.
const (
	svc = `apiVersion: v1
kind: Service
metadata:
  name: s
  namespace: default
spec:
  ports:
  - name: http
    port: 80
`
	svcPatch = `- patch: |
    apiVersion: v1
    kind: Service
    metadata:
      name: s
      namespace: default
    spec:
      ports:
      - name: http
        port: 8080
`
)

// TestFirstBuildParsesSchemaOnNeed: the process's first build runs on the schema nobody has
// parsed (package schemalock): a render whose one build has no strategic-merge patch never
// parses it, and a first build with an `openapi:` field, stopped and run again on the
// preloaded builtin schema as fluxcd/pkg/kustomize.Build runs every build, gives what a
// later build gives: its custom kind merged by the custom key, its Service by the builtin
// one. (kyaml gives the same here without the preload; the rerun keeps Build's order.)
func TestFirstBuildParsesSchemaOnNeed(t *testing.T) {
	plain := tree(t, bootstrap("dev"))
	schemalock.Restart()
	if _, err := Render(context.Background(), plain, Options{Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if got := schemalock.Parses(); got != 0 {
		t.Errorf("a render of one plain build parsed the schema %d times, want 0", got)
	}
	custom := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/kustomization.yaml": "resources: [kind.yaml, svc.yaml]\nopenapi:\n  path: schema.json\n" + openAPIPatch + svcPatch,
		"clusters/dev/kind.yaml":          openAPIKind,
		"clusters/dev/svc.yaml":           svc,
		"clusters/dev/schema.json":        openAPISchema,
	}))
	merged := []any{map[string]any{"name": "b", "value": "2"}, map[string]any{"name": "a", "value": "1"}}
	ports := []any{map[string]any{"name": "http", "port": int64(8080)}, map[string]any{"name": "http", "port": int64(80)}}
	for i, restart := range []bool{true, false} { // the first build of a process, then a later one
		if restart {
			schemalock.Restart()
		}
		g, err := Render(context.Background(), custom, Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		var items []any
		for _, o := range g.Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "flux-system"}].Objects {
			switch o.Body.GetKind() {
			case "MyKind":
				items, _, _ = unstructuredSlice(o.Body.Object, "spec", "items")
			case "Service":
				got, _, _ := unstructuredSlice(o.Body.Object, "spec", "ports")
				if d := cmp.Diff(ports, got); d != "" {
					t.Errorf("render %d: Service ports (-want +got):\n%s", i, d)
				}
			}
		}
		if d := cmp.Diff(merged, items); d != "" {
			t.Errorf("render %d: MyKind items (-want +got):\n%s", i, d)
		}
	}
}

// TestParallelBuildsIsolateOpenAPI builds, many at a time, Kustomizations with a custom
// schema (a list merge key) among plain ones: every plain build must see the builtin
// schema only (its patch replaces the list), every custom one its own (the patch merges).
func TestParallelBuildsIsolateOpenAPI(t *testing.T) {
	files := bootstrap("dev")
	for i := 0; i < 12; i++ {
		name := fmt.Sprintf("k%02d", i)
		files["clusters/dev/"+name+".yaml"] = ks(name, "./"+name)
		kfile := "resources: [kind.yaml]\n" + openAPIPatch
		if i%4 == 0 {
			kfile = "resources: [kind.yaml]\nopenapi:\n  path: schema.json\n" + openAPIPatch
			files[name+"/schema.json"] = openAPISchema
		}
		files[name+"/kustomization.yaml"] = kfile
		files[name+"/kind.yaml"] = openAPIKind
	}
	dir := tree(t, files)
	want := map[string]int{}
	for i := 0; i < 12; i++ {
		want[fmt.Sprintf("k%02d", i)] = map[bool]int{true: 2, false: 1}[i%4 == 0]
	}
	for round := 0; round < 3; round++ {
		g, err := Render(context.Background(), dir, Options{Workers: 6})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for ref, k := range g.Cluster("dev").Kustomizations {
			if ref.Name == "flux-system" {
				continue
			}
			if len(k.Objects) != 1 {
				t.Fatalf("%s: %d objects, err %v", ref.Name, len(k.Objects), k.Err)
			}
			v, _, _ := unstructuredSlice(k.Objects[0].Body.Object, "spec", "items")
			got[ref.Name] = len(v)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("round %d: list items per Kustomization (-want +got):\n%s", round, d)
		}
	}
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	dir := tree(t, cacheFleet())
	fps := fsys.NewFingerprints(mustSnapshot(t, dir))
	deps := []fsys.Dep{{Op: fsys.DepRead, Path: "base/c.yaml"}}
	c := NewCache(3 * (fps.Of(deps[0]).Size*memPerInputByte + 2)) // three entries with 2-byte keys
	for _, k := range []string{"k1", "k2", "k3"} {
		c.add(k, deps, fps, nil, nil, nil)
	}
	if _, ok := c.lookup("k1", fps); !ok { // k1 becomes the most recent
		t.Fatal("k1 missing")
	}
	c.add("k4", deps, fps, nil, nil, nil) // over the bound: k2, the least recently used, goes
	var kept []string
	for _, k := range []string{"k1", "k2", "k3", "k4"} {
		if _, ok := c.lookup(k, fps); ok {
			kept = append(kept, k)
		}
	}
	if d := cmp.Diff([]string{"k1", "k3", "k4"}, kept); d != "" {
		t.Errorf("kept (-want +got):\n%s", d)
	}
	if st := c.Stats(); st.Evictions != 1 || st.Entries != 3 {
		t.Errorf("stats %+v, want 1 eviction and 3 entries", st)
	}
}

func unstructuredSlice(obj map[string]any, fields ...string) ([]any, bool, error) {
	var cur any = obj
	for _, f := range fields {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false, nil
		}
		cur = m[f]
	}
	s, ok := cur.([]any)
	return s, ok, nil
}

// TestGraphKeptBySourceID: the graph of a source with an id is rendered once per set of
// options; a source without id, or a render that may fetch remote files, is not kept.
func TestGraphKeptBySourceID(t *testing.T) {
	dir := tree(t, cacheFleet())
	read := func(id string) *fsys.Source {
		src, err := fsys.ReadSource(dir, graph.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		src.ID = id
		return src
	}
	cache := NewCache(0)
	render := func(src *fsys.Source, opts Options) *graph.Graph {
		opts.Cache = cache
		g, err := RenderSource(context.Background(), src, opts)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	first := render(read("tree-a"), Options{})
	cases := []struct {
		name string
		src  *fsys.Source
		opts Options
		same bool
	}{
		{"same id and options", read("tree-a"), Options{}, true},
		{"same id, other clusters", read("tree-a"), Options{Clusters: []string{"dev"}}, false},
		{"same id, other limits", read("tree-a"), Options{Limits: graph.Limits{MaxObjects: 7}}, false},
		{"other id", read("tree-b"), Options{}, false},
		{"no id", read(""), Options{}, false},
		{"remote fetching allowed", read("tree-a"), Options{Remote: RemotePolicy{Allow: []string{"example.com"}}}, false},
	}
	for _, tc := range cases {
		if got := render(tc.src, tc.opts) == first; got != tc.same {
			t.Errorf("%s: same graph %v, want %v", tc.name, got, tc.same)
		}
	}
}

// TestOpenAPIAnyCaseIsBuiltAlone: kustomize reads a base's `OpenAPI:` as `openapi:`
// (encoding/json matches field names case-insensitively) and sets the process's schema;
// such a build must run alone and the next one start from the builtin schema.
func TestOpenAPIAnyCaseIsBuiltAlone(t *testing.T) {
	custom := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/a.yaml":       ks("a", "./a"),
		"a/kustomization.yaml":      "resources: [base]\n" + openAPIPatch,
		"a/base/kustomization.yaml": "resources: [kind.yaml]\nOpenAPI:\n  path: schema.json\n",
		"a/base/kind.yaml":          openAPIKind,
		"a/base/schema.json":        openAPISchema,
	}))
	plain := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/b.yaml":  ks("b", "./b"),
		"b/kustomization.yaml": "resources: [kind.yaml]\n" + openAPIPatch,
		"b/kind.yaml":          openAPIKind,
	}))
	items := func(dir, name string) int {
		g, err := Render(context.Background(), dir, Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		k := g.Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: name}]
		if k.Err != nil || len(k.Objects) != 1 {
			t.Fatalf("%s: %d objects, err %v", name, len(k.Objects), k.Err)
		}
		v, _, _ := unstructuredSlice(k.Objects[0].Body.Object, "spec", "items")
		return len(v)
	}
	if got := items(custom, "a"); got != 2 {
		t.Errorf("a: %d items, want 2 (the custom schema's merge key merges the patch)", got)
	}
	if got := items(plain, "b"); got != 1 {
		t.Errorf("b after a: %d items, want 1 (the builtin schema replaces the list)", got)
	}
}

// TestBuildsKeptPerLimits: a build made within looser per-build limits is not reused
// under tighter ones, which refuse it.
func TestBuildsKeptPerLimits(t *testing.T) {
	dir := tree(t, cacheFleet())
	cache := NewCache(0)
	if _, err := Render(context.Background(), dir, Options{Cache: cache}); err != nil {
		t.Fatal(err)
	}
	g, err := Render(context.Background(), dir, Options{Cache: cache, Limits: graph.Limits{MaxBuildDocuments: 1}})
	if err != nil {
		t.Fatal(err)
	}
	root := g.Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "flux-system"}]
	want := "refused clusters/dev/kustomization.yml: the build has read more than tiergate's limit of 1 YAML documents (--max-build-documents); kustomize's time grows with their square"
	if root.Err == nil || root.Err.Message != want {
		t.Errorf("root under MaxBuildDocuments 1: error %v, want %q", root.Err, want)
	}
}
