package fleet_test

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/fleet"
	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review"
)

// small is the fleet the tests check by hand: 2 clusters; cluster-config in layer 0 and
// app-0000..app-0007 in layers 1 (0000-0003) and 2 (0004-0007); app-0003 and app-0007 are
// plain directories (every fourth app), the other six overlays; 5 objects per app.
var small = fleet.Spec{Clusters: 2, Kustomizations: 9, Objects: 5, Layers: 3, Seed: 1}

// Per cluster: the root and 9 tiers; the root emits its GitRepository, itself and the 9
// tier Kustomizations, cluster-config one ConfigMap, each of the 8 apps 5 objects.
const (
	smallKustomizations = 1 + 9
	smallObjects        = 2 + 9 + 1 + 8*5
)

func write(t testing.TB, s fleet.Spec) (*fleet.Repo, *gitrepo.Repo) {
	t.Helper()
	dir := t.TempDir()
	fr, err := s.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gitrepo.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return fr, g
}

func TestWriteDeterministic(t *testing.T) {
	a, _ := write(t, small)
	b, _ := write(t, small)
	b.Dir = a.Dir // differs by construction; every hash and edit must not
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same spec, different repos (-a +b):\n%s", diff)
	}
	other := small
	other.Seed = 2
	c, _ := write(t, other)
	if c.Base == a.Base {
		t.Errorf("seeds 1 and 2 give the same base commit %s", a.Base)
	}
	if len(a.Heads) != len(fleet.Shapes) {
		t.Errorf("%d heads, want one per shape (%d)", len(a.Heads), len(fleet.Shapes))
	}
}

func TestSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		spec fleet.Spec
		want string
	}{
		{fleet.Spec{Clusters: 0, Kustomizations: 9, Objects: 5}, "fleet spec: Clusters 0: want at least 1"},
		{fleet.Spec{Clusters: 1, Kustomizations: 9, Objects: 3}, "fleet spec: Objects 3: want at least 4 (Namespace, ConfigMap, ClusterRole, Deployment)"},
		{fleet.Spec{Clusters: 1, Kustomizations: 9, Objects: 4, Layers: 2}, "fleet spec: Layers 2: want at least 3"},
		{fleet.Spec{Clusters: 1, Kustomizations: 9, Objects: 4, HelmReleases: 9}, "fleet spec: HelmReleases 9: want 0 to 8 (one per app tier)"},
		{fleet.Spec{Clusters: 1, Kustomizations: 6, Objects: 4}, "fleet spec: Kustomizations 6: want at least 7 for 4 layers (two app tiers per layer)"},
	} {
		_, err := tc.spec.Write(t.TempDir())
		if err == nil || err.Error() != tc.want {
			t.Errorf("%+v: error %v, want %q", tc.spec, err, tc.want)
		}
	}
}

// renderCommit renders commit h of g as the pipeline does.
func renderCommit(t *testing.T, g *gitrepo.Repo, h plumbing.Hash) *graph.Graph {
	t.Helper()
	tree, err := pipeline.Load(g, h, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	gr, err := render.RenderSource(context.Background(), tree.Source, render.Options{SourceIgnore: true})
	if err != nil {
		t.Fatal(err)
	}
	return gr
}

func TestRenderBase(t *testing.T) {
	fr, g := write(t, small)
	gr := renderCommit(t, g, fr.Base)
	var names []string
	for _, c := range gr.Clusters {
		names = append(names, c.Name)
	}
	if diff := cmp.Diff([]string{"cluster-01", "cluster-02"}, names); diff != "" {
		t.Fatalf("clusters (-want +got):\n%s", diff)
	}
	for _, c := range gr.Clusters {
		if len(c.Kustomizations) != smallKustomizations || c.ObjectCount() != smallObjects {
			t.Errorf("%s: %d Kustomizations, %d objects; want %d, %d", c.Name, len(c.Kustomizations), c.ObjectCount(), smallKustomizations, smallObjects)
		}
		if c.RootDir != "clusters/"+c.Name {
			t.Errorf("%s: root %q", c.Name, c.RootDir)
		}
		for ref, ks := range c.Kustomizations {
			if ks.Err != nil || ks.Skipped != "" {
				t.Errorf("%s %s: error %v, skipped %q", c.Name, ref, ks.Err, ks.Skipped)
			}
		}
		if p := render.Partials(c); len(p) != 0 {
			t.Errorf("%s: partial %v", c.Name, p)
		}
		checkLayers(t, c)
		checkSubstitution(t, c)
		plain := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "app-0003"}]
		var files []string
		for _, o := range plain.Objects {
			files = append(files, o.File)
		}
		sort.Strings(files)
		wantFiles := []string{"apps/app-0003/clusterrole-reader.yaml", "apps/app-0003/configmap-config.yaml",
			"apps/app-0003/deployment-app-0003-3.yaml", "apps/app-0003/namespace.yaml", "apps/app-0003/service-app-0003-4.yaml"}
		if diff := cmp.Diff(wantFiles, files); diff != "" || plain.Spec.Path != "./apps/app-0003" {
			t.Errorf("%s: plain app-0003 at %q, files (-want +got):\n%s", c.Name, plain.Spec.Path, diff)
		}
	}
}

// checkLayers derives each tier's layer from dependsOn (one more than its dependencies',
// which must agree) and counts tiers per layer.
func checkLayers(t *testing.T, c *graph.Cluster) {
	layer := map[string]int{}
	var of func(name string) int
	of = func(name string) int {
		if l, ok := layer[name]; ok {
			return l
		}
		deps := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: name}].Spec.DependsOn
		l := 0
		for i, d := range deps {
			if dl := of(d.Name) + 1; i > 0 && dl != l {
				t.Errorf("%s: %s depends on tiers of different layers", c.Name, name)
			} else {
				l = dl
			}
		}
		layer[name] = l
		return l
	}
	count := map[int]int{}
	for ref := range c.Kustomizations {
		if ref.Name != "flux-system" {
			count[of(ref.Name)]++
		}
	}
	if diff := cmp.Diff(map[int]int{0: 1, 1: 4, 2: 4}, count); diff != "" {
		t.Errorf("%s: tiers per layer (-want +got):\n%s", c.Name, diff)
	}
}

// checkSubstitution reads app-0000's ConfigMap: substitute, substituteFrom the
// cluster-vars ConfigMap of cluster-config, a default, the overlay patch and the Component.
func checkSubstitution(t *testing.T, c *graph.Cluster) {
	vars := c.Owners[graph.ObjectID{Kind: "ConfigMap", Namespace: "flux-system", Name: "cluster-vars"}]
	if len(vars) != 1 || vars[0].Owner.Name != "cluster-config" {
		t.Fatalf("%s: cluster-vars owners %v", c.Name, vars)
	}
	region, _, _ := unstructured.NestedString(vars[0].Body.Object, "data", "region")
	cm := c.Owners[graph.ObjectID{Kind: "ConfigMap", Namespace: "app-0000", Name: "app-0000-config"}]
	if len(cm) != 1 {
		t.Fatalf("%s: app-0000-config owners %v", c.Name, cm)
	}
	data, _, _ := unstructured.NestedStringMap(cm[0].Body.Object, "data")
	want := map[string]string{"app": "app-0000", "cluster": c.Name, "region": region, "log_level": "info", "overlay": c.Name}
	if diff := cmp.Diff(want, data); diff != "" || region == "" {
		t.Errorf("%s: app-0000-config data (-want +got):\n%s", c.Name, diff)
	}
	if a := cm[0].Body.GetAnnotations()["fleet.example/policy"]; a != "v1" {
		t.Errorf("%s: Component annotation %q, want v1", c.Name, a)
	}
}

// summary is what a review of a shape must report, counted.
type summary struct {
	Clusters             []review.ClusterSummary
	Moves                map[string]int // "from → to"
	Findings             map[string]int // "rule severity status"
	Added, Removed       map[string]int // "Kind owner"
	Changed              map[string]int // "Kind owner"
	KustomizationChanges []string       // "cluster Kustomization change", sorted
}

func summarize(rep *review.Report) summary {
	s := summary{Clusters: rep.Clusters, Moves: map[string]int{}, Findings: map[string]int{},
		Added: map[string]int{}, Removed: map[string]int{}, Changed: map[string]int{}}
	for _, m := range rep.Moves {
		s.Moves[m.From+" → "+m.To]++
	}
	for _, f := range rep.Findings {
		s.Findings[fmt.Sprintf("%s %s %s", f.Rule, f.Severity, f.Status)]++
	}
	for _, l := range []struct {
		m  map[string]int
		cs []review.ObjectChange
	}{{s.Added, rep.Added}, {s.Removed, rep.Removed}, {s.Changed, rep.Changed}} {
		for _, c := range l.cs {
			l.m[c.Object.Kind+" "+c.Kustomization]++
		}
	}
	for _, k := range rep.KustomizationChanges {
		s.KustomizationChanges = append(s.KustomizationChanges, k.Cluster+" "+k.Kustomization+" "+string(k.Change))
	}
	sort.Strings(s.KustomizationChanges)
	return s
}

// TestShapes reviews each head against the base with the CLI's pipeline. The base itself
// is clean (no finding at base, so none is "existing" or "resolved").
func TestShapes(t *testing.T) {
	fr, g := write(t, small)
	base := renderCommit(t, g, fr.Base)
	var clusters []review.ClusterSummary
	for _, c := range fr.Clusters {
		clusters = append(clusters, review.ClusterSummary{Name: c, Root: "clusters/" + c, Kustomizations: smallKustomizations, Objects: smallObjects, Partial: []graph.Partial{}})
	}
	ks := func(name string) string { return "flux-system/" + name }
	empty := func() map[string]int { return map[string]int{} }
	for _, sh := range fleet.Shapes {
		e := fr.Edits[sh]
		want := summary{Clusters: clusters, Moves: empty(), Findings: empty(), Added: empty(), Removed: empty(), Changed: empty()}
		switch sh {
		case fleet.OneFile:
			want.Changed = map[string]int{"Deployment " + ks(e.App): 2}
		case fleet.MoveObject:
			// e.To depends on e.App directly: the old owner prunes first (certain).
			if !dependsOn(base.Clusters[0], e.To, e.App) {
				t.Errorf("move-object: %s does not depend on %s at base", e.To, e.App)
			}
			want.Moves = map[string]int{ks(e.App) + " → " + ks(e.To): 2}
			want.Findings = map[string]int{"tier-move notice new": 2, "prune-transient warning new": 2}
		case fleet.RenameTier:
			// Every object of the tier moves; the old tier is deleted, so each is a
			// prune-transient race: an error for the Namespace, a warning for the 4 others.
			var deps []string
			for ref, k := range base.Clusters[0].Kustomizations {
				if dependsOn(base.Clusters[0], ref.Name, e.App) && len(k.Spec.DependsOn) > 0 {
					deps = append(deps, ref.Name)
				}
			}
			sort.Strings(deps)
			if diff := cmp.Diff(deps, e.Dependents); diff != "" || len(deps) == 0 {
				t.Errorf("rename-tier dependents (-base +edit):\n%s", diff)
			}
			want.Moves = map[string]int{ks(e.App) + " → " + ks(e.To): 2 * 5}
			want.Findings = map[string]int{"tier-move notice new": 10, "prune-transient error new": 2, "prune-transient warning new": 8}
			want.Added = map[string]int{"Kustomization " + ks("flux-system"): 2}
			want.Removed = map[string]int{"Kustomization " + ks("flux-system"): 2}
			want.Changed = map[string]int{"Kustomization " + ks("flux-system"): 2 * len(deps)}
			for _, c := range fr.Clusters {
				want.KustomizationChanges = append(want.KustomizationChanges, c+" "+ks(e.App)+" removed", c+" "+ks(e.To)+" added")
				for _, d := range deps {
					want.KustomizationChanges = append(want.KustomizationChanges, c+" "+ks(d)+" changed")
				}
			}
			sort.Strings(want.KustomizationChanges)
		case fleet.SharedBase:
			// Every object of the 6 overlay apps in both clusters: 6 × 5 × 2.
			for _, kind := range []string{"Namespace", "ConfigMap", "ClusterRole", "Deployment", "Service"} {
				for _, app := range []string{"app-0000", "app-0001", "app-0002", "app-0004", "app-0005", "app-0006"} {
					want.Changed[kind+" "+ks(app)] = 2
				}
			}
		}
		res, err := pipeline.Commits(context.Background(), g, fr.Base, fr.Heads[sh], pipeline.Options{})
		if err != nil {
			t.Fatalf("%s: %v", sh, err)
		}
		if diff := cmp.Diff(want, summarize(res.Report)); diff != "" {
			t.Errorf("%s (%+v) (-want +got):\n%s", sh, e, diff)
		}
	}
}

// dependsOn reports whether Kustomization from lists to in its dependsOn.
func dependsOn(c *graph.Cluster, from, to string) bool {
	for _, d := range c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: from}].Spec.DependsOn {
		if d.Name == to {
			return true
		}
	}
	return false
}

// TestNaive checks the baseline builds what render builds: the same Kustomizations and
// objects (by owner and identity) at base, and the moves and changes of each shape.
func TestNaive(t *testing.T) {
	fr, g := write(t, small)
	base := renderCommit(t, g, fr.Base)
	for _, sh := range fleet.Shapes {
		res, err := fleet.Naive(context.Background(), g, fr.Base, fr.Heads[sh])
		if err != nil {
			t.Fatal(err)
		}
		if sh == fleet.OneFile {
			for _, c := range base.Clusters {
				want := map[string][]string{}
				for ref, ks := range c.Kustomizations {
					for _, o := range ks.Objects {
						want[ref.String()] = append(want[ref.String()], o.ID.Group+"/"+o.ID.Kind+"/"+o.ID.Namespace+"/"+o.ID.Name)
					}
					sort.Strings(want[ref.String()])
				}
				nc := res.Base[c.Name]
				got := map[string][]string{}
				for ref, objs := range nc.Objects {
					got[ref] = []string{}
					for _, o := range objs {
						got[ref] = append(got[ref], o.ID)
					}
					sort.Strings(got[ref])
				}
				if diff := cmp.Diff(want, got); diff != "" || len(nc.Errors) > 0 {
					t.Errorf("%s: naive objects (-render +naive):\n%s\nerrors: %v", c.Name, diff, nc.Errors)
				}
			}
		}
		want := map[fleet.Shape][2]int{
			fleet.OneFile:    {0, 2},
			fleet.MoveObject: {2, 0},
			fleet.RenameTier: {10, 2 * len(fr.Edits[fleet.RenameTier].Dependents)},
			fleet.SharedBase: {0, 60},
		}[sh]
		if got := [2]int{res.Moves, res.Changed}; got != want {
			t.Errorf("%s: naive moves, changed = %v, want %v", sh, got, want)
		}
	}
}
