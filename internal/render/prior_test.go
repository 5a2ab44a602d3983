package render

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// failedParent reads the base and head of testdata/scenarios/failed-parent: at head the
// root rejects apps (dependsOn is a string), so it applies nothing it emits.
func failedParent(t *testing.T, id string) (base, head *fsys.Source) {
	t.Helper()
	return scenario(t, "failed-parent", id)
}

// scenario reads the base and head of testdata/scenarios/<name>, with ids id-base and
// id-head ("" keeps nothing in a Cache).
func scenario(t *testing.T, name, id string) (base, head *fsys.Source) {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "scenarios", name)
	base, err := fsys.ReadSource(filepath.Join(dir, "base"), graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	head, err = fsys.ReadSource(filepath.Join(dir, "head"), graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if id != "" {
		base.ID, head.ID = id+"-base", id+"-head"
	}
	return base, head
}

func renderOK(t *testing.T, src *fsys.Source, opts Options) *graph.Graph {
	t.Helper()
	g, err := RenderSource(context.Background(), src, opts)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestPriorSpec: the Kustomizations a failing parent emitted at the prior commit are
// rendered with their prior spec and this commit's files; those it emits only now are not.
func TestPriorSpec(t *testing.T) {
	base, head := failedParent(t, "")
	bg := renderOK(t, base, Options{})

	alone := renderOK(t, head, Options{}).Clusters[0]
	if diff := cmp.Diff([]graph.Ref{{Namespace: "flux-system", Name: "flux-system"}}, alone.Order); diff != "" {
		t.Errorf("without a prior (-want +got):\n%s", diff)
	}

	c := renderOK(t, head, Options{Prior: bg}).Clusters[0]
	if diff := cmp.Diff([]graph.Ref{{Namespace: "flux-system", Name: "flux-system"}, {Namespace: "flux-system", Name: "apps"}, {Namespace: "flux-system", Name: "infra"}}, c.Order); diff != "" {
		t.Fatalf("with the base as prior (-want +got):\n%s", diff)
	}
	if c.Kustomizations[c.Order[0]].Err == nil || c.Kustomizations[c.Order[0]].PriorSpec {
		t.Errorf("the root: want an error and its own spec")
	}
	apps := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	type view struct {
		PriorSpec bool
		DependsOn []graph.Ref
		Parent    graph.Ref
		File      string
		Line      int
		Objects   []string
	}
	got := view{PriorSpec: apps.PriorSpec, DependsOn: apps.Spec.DependsOn, Parent: *apps.Parent, File: apps.File, Line: apps.Line}
	for _, o := range apps.Objects {
		got.Objects = append(got.Objects, o.ID.String()+" "+o.File)
	}
	want := view{
		PriorSpec: true, DependsOn: []graph.Ref{{Namespace: "flux-system", Name: "infra"}}, Parent: graph.Ref{Namespace: "flux-system", Name: "flux-system"},
		File: "clusters/demo/tiers.yaml", Line: 17, // where apps is written at head
		Objects: []string{"Deployment.apps/web/web apps/web/deployment.yaml"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("apps (-want +got):\n%s", diff)
	}
	containers, _, _ := unstructured.NestedSlice(apps.Objects[0].Body.Object, "spec", "template", "spec", "containers")
	if image := containers[0].(map[string]any)["image"]; image != "ghcr.io/example/web:1.5.0" {
		t.Errorf("apps builds image %v, want the head file's ghcr.io/example/web:1.5.0", image)
	}
	if !c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "infra"}].PriorSpec {
		t.Errorf("infra: want PriorSpec")
	}
}

// TestGraphKeptPerPrior: a graph in which something fails depends on the prior graph and
// is kept per prior; the base's graph, where nothing fails, is kept once for any prior.
func TestGraphKeptPerPrior(t *testing.T) {
	base, head := failedParent(t, "tree")
	cache := NewCache(0)
	bg := renderOK(t, base, Options{Cache: cache})
	first := renderOK(t, head, Options{Cache: cache, Prior: bg})
	for _, tc := range []struct {
		name  string
		src   *fsys.Source
		prior *graph.Graph
		want  *graph.Graph
	}{
		{"head, same prior", head, bg, first},
		{"base, any prior", base, first, bg},
		{"base, no prior", base, nil, bg},
	} {
		if got := renderOK(t, tc.src, Options{Cache: cache, Prior: tc.prior}); got != tc.want {
			t.Errorf("%s: not the kept graph", tc.name)
		}
	}
	alone := renderOK(t, head, Options{Cache: cache})
	if alone == first || len(alone.Clusters[0].Order) != 1 {
		t.Errorf("head without a prior: got the graph rendered with one, or %d Kustomizations (want 1)", len(alone.Clusters[0].Order))
	}
	if again := renderOK(t, head, Options{Cache: cache}); again != alone {
		t.Errorf("head without a prior, again: not the kept graph")
	}
	if g, ok := cache.Graph("tree-head", Options{Prior: bg}); !ok || g != first {
		t.Errorf("Cache.Graph(head, prior base) = %p, %v; want the kept graph %p", g, ok, first)
	}
}

// TestPriorSpecTakenOver: a Kustomization that a failed parent emitted at the prior commit
// and that a working parent emits now, deeper in the graph, has the working parent's spec:
// server-side apply takes it over.
func TestPriorSpecTakenOver(t *testing.T) {
	base, head := scenario(t, "failed-parent-takeover", "")
	c := renderOK(t, head, Options{Prior: renderOK(t, base, Options{})}).Clusters[0]
	web := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "web"}]
	if web == nil {
		t.Fatalf("web not rendered: %v", c.Order)
	}
	type view struct {
		PriorSpec bool
		Parent    graph.Ref
		DependsOn []graph.Ref
		File      string
	}
	got := view{web.PriorSpec, *web.Parent, web.Spec.DependsOn, web.File}
	want := view{false, graph.Ref{Namespace: "flux-system", Name: "platform"}, []graph.Ref{{Namespace: "flux-system", Name: "infra"}}, "platform/web.yaml"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("web (-want +got):\n%s", diff)
	}
}

// TestPriorObjectsSubstitute: substituteFrom reads what a failed Kustomization left in the
// cluster, its objects at the prior commit, not the ones its failed apply would write.
func TestPriorObjectsSubstitute(t *testing.T) {
	base, head := scenario(t, "failed-parent-substitution", "")
	c := renderOK(t, head, Options{Prior: renderOK(t, base, Options{})}).Clusters[0]
	apps := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if apps == nil || len(apps.Objects) != 1 {
		t.Fatalf("apps: want one object, got %v", apps)
	}
	data, _, _ := unstructured.NestedMap(apps.Objects[0].Body.Object, "data")
	// ${region} is undefined at the prior commit: non-strict substitution leaves `region:`
	// empty in the YAML kustomize wrote, which reads as null.
	want := map[string]any{"url": "https://web.example.com", "region": nil}
	if diff := cmp.Diff(want, data); diff != "" {
		t.Errorf("ConfigMap web/web (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]bool{"domain": true}, apps.Vars); diff != "" {
		t.Errorf("apps.Vars (-want +got):\n%s", diff)
	}
}

// TestGraphKeys: the memory and the disk lookups try the plain key first, then the key of
// the prior the graph was rendered over; a prior that was not kept (no Key) has none.
func TestGraphKeys(t *testing.T) {
	for _, tc := range []struct {
		prior *graph.Graph
		want  []string
	}{
		{nil, []string{"k", "k\x00no prior"}},
		{&graph.Graph{Key: "p"}, []string{"k", "k\x00prior\x00p"}},
		{&graph.Graph{}, []string{"k"}},
	} {
		if got := graphKeys("k", tc.prior); !slices.Equal(got, tc.want) {
			t.Errorf("graphKeys(k, %+v) = %q, want %q", tc.prior, got, tc.want)
		}
	}
}
