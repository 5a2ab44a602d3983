package rules

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// maxFuzzKustomizations keeps the quadratic reference checks fast.
const maxFuzzKustomizations = 48

// FuzzDependsOnGraph builds a cluster from an arbitrary list of Kustomizations, one per line
// `[ns/]name[<[ns/]parent]: [ns/]dep ...` (namespaces default as kustomize-controller
// defaults them), and checks the dependsOn graph code. Invariants: nothing panics; every
// reported cycle is a real cycle through the smallest member of its component, as short as
// a breadth-first search finds; the components are exactly the strongly connected sets with
// a cycle; dependsOnPath, appliesAfter and ancestor agree with a plain reference search.
func FuzzDependsOnGraph(f *testing.F) {
	for _, dir := range []string{filepath.Join("..", "..", "..", "testdata", "scenarios"), filepath.Join("..", "..", "..", "..", "shared", "scenarios")} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			for _, side := range []string{"", "base", "head"} {
				if s := graphSeed(filepath.Join(dir, e.Name(), side)); s != "" {
					f.Add(s)
				}
			}
		}
	}
	f.Add("root\na<root: b\nb<root: c\nc<root: a\nd<a: a d x/e\nx/e<d: f")
	f.Fuzz(func(t *testing.T, spec string) {
		c := fuzzCluster(spec)
		env := &Env{}
		v := env.view(c)
		comps := cycles(c)
		checkCycles(t, c, comps)
		if fs := dependsOnCycle(c, nil, env); len(fs) != len(comps) {
			t.Errorf("%d depends-on-cycle findings for %d cyclic components", len(fs), len(comps))
		}
		dependsOnNotFound(c, nil, env)

		targets := slices.Clone(c.Order)
		for _, ks := range c.Kustomizations {
			targets = append(targets, ks.Spec.DependsOn...)
			if ks.Parent != nil {
				targets = append(targets, *ks.Parent)
			}
		}
		for _, from := range c.Order {
			for _, to := range targets {
				if got, want := v.dependsOnPath(from, to), refReach(c, from, to, false); got != want {
					t.Errorf("dependsOnPath(%s, %s) = %t, reference search %t", from, to, got, want)
				}
				if got, want := v.appliesAfter(from, to), from == to || refReach(c, from, to, true); got != want {
					t.Errorf("appliesAfter(%s, %s) = %t, reference search %t", from, to, got, want)
				}
				if got, want := v.ancestor(from, to), refAncestor(c, from, to); got != want {
					t.Errorf("ancestor(%s, %s) = %t, reference walk %t", from, to, got, want)
				}
			}
		}
	})
}

// fuzzCluster reads the line format of FuzzDependsOnGraph; a Kustomization named twice
// keeps its first line, as render keeps the first emitter.
func fuzzCluster(spec string) *graph.Cluster {
	c := &graph.Cluster{Name: "fuzz", Kustomizations: map[graph.Ref]*graph.Kustomization{}}
	for i, line := range strings.Split(spec, "\n") {
		if len(c.Order) == maxFuzzKustomizations {
			break
		}
		head, deps, _ := strings.Cut(line, ":")
		name, parent, hasParent := strings.Cut(head, "<")
		ref := fuzzRef(name, "flux-system")
		if _, dup := c.Kustomizations[ref]; dup {
			continue
		}
		ks := &graph.Kustomization{Ref: ref, File: "clusters/fuzz.yaml", Line: i + 1}
		if hasParent {
			p := fuzzRef(parent, ref.Namespace)
			ks.Parent = &p
		}
		for _, d := range strings.Fields(deps) {
			ks.Spec.DependsOn = append(ks.Spec.DependsOn, fuzzRef(d, ref.Namespace))
		}
		c.Kustomizations[ref] = ks
		c.Order = append(c.Order, ref)
	}
	return c
}

func fuzzRef(s, defaultNS string) graph.Ref {
	s = strings.TrimSpace(s)
	if ns, name, ok := strings.Cut(s, "/"); ok {
		return graph.Ref{Namespace: ns, Name: name}
	}
	return graph.Ref{Namespace: defaultNS, Name: s}
}

// checkCycles compares the components cycles returns with a reference computed from refReach.
func checkCycles(t *testing.T, c *graph.Cluster, comps []component) {
	t.Helper()
	inComp := map[graph.Ref]int{}
	for i, comp := range comps {
		if len(comp.cycle) == 0 || len(comp.members) == 0 || comp.cycle[0] != comp.members[0] {
			t.Fatalf("component %d: cycle %v does not start at the smallest of members %v", i, comp.cycle, comp.members)
		}
		if !slices.IsSortedFunc(comp.members, func(a, b graph.Ref) int { return strings.Compare(a.String(), b.String()) }) {
			t.Errorf("component %d: members %v are not sorted", i, comp.members)
		}
		for j, from := range comp.cycle {
			to := comp.cycle[(j+1)%len(comp.cycle)]
			if !slices.Contains(c.Kustomizations[from].Spec.DependsOn, to) {
				t.Errorf("component %d: reported cycle %v has no dependsOn edge %s -> %s", i, comp.cycle, from, to)
			}
			if !slices.Contains(comp.members, from) {
				t.Errorf("component %d: cycle node %s is not a member", i, from)
			}
		}
		if want := refShortestCycle(c, comp.members[0]); len(comp.cycle) != want {
			t.Errorf("component %d: cycle %v has %d edges, the shortest through %s has %d", i, comp.cycle, len(comp.cycle), comp.members[0], want)
		}
		for _, m := range comp.members {
			if j, dup := inComp[m]; dup {
				t.Errorf("%s is in components %d and %d", m, j, i)
			}
			inComp[m] = i
		}
	}
	for _, r := range c.Order {
		onCycle := refReachKnown(c, r, r)
		i, reported := inComp[r]
		if onCycle != reported {
			t.Errorf("%s: on a cycle %t, reported %t", r, onCycle, reported)
			continue
		}
		if !reported {
			continue
		}
		var want []graph.Ref
		for _, o := range c.Order {
			if refReachKnown(c, r, o) && refReachKnown(c, o, r) {
				want = append(want, o)
			}
		}
		slices.SortFunc(want, func(a, b graph.Ref) int { return strings.Compare(a.String(), b.String()) })
		if !slices.Equal(want, comps[i].members) {
			t.Errorf("component of %s = %v, reference %v", r, comps[i].members, want)
		}
	}
}

// refReach is a breadth-first search from `from` (excluded unless on a cycle) along dependsOn
// and, with parents, parent edges; a Kustomization absent from the cluster is reached but has
// no edges.
func refReach(c *graph.Cluster, from, to graph.Ref, parents bool) bool {
	next := func(r graph.Ref) []graph.Ref {
		ks := c.Kustomizations[r]
		if ks == nil {
			return nil
		}
		out := slices.Clone(ks.Spec.DependsOn)
		if parents && ks.Parent != nil {
			out = append(out, *ks.Parent)
		}
		return out
	}
	seen := map[graph.Ref]bool{}
	queue := next(from)
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		if r == to {
			return true
		}
		if !seen[r] {
			seen[r] = true
			queue = append(queue, next(r)...)
		}
	}
	return false
}

// refReachKnown is refReach over dependsOn edges between Kustomizations of the cluster only.
func refReachKnown(c *graph.Cluster, from, to graph.Ref) bool {
	seen := map[graph.Ref]bool{}
	queue := []graph.Ref{from}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		for _, d := range c.Kustomizations[r].Spec.DependsOn {
			if c.Kustomizations[d] == nil {
				continue
			}
			if d == to {
				return true
			}
			if !seen[d] {
				seen[d] = true
				queue = append(queue, d)
			}
		}
	}
	return false
}

// refShortestCycle is the number of edges of the shortest dependsOn cycle through start.
func refShortestCycle(c *graph.Cluster, start graph.Ref) int {
	dist := map[graph.Ref]int{start: 0}
	queue := []graph.Ref{start}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		for _, d := range c.Kustomizations[r].Spec.DependsOn {
			if d == start {
				return dist[r] + 1
			}
			if _, seen := dist[d]; !seen && c.Kustomizations[d] != nil {
				dist[d] = dist[r] + 1
				queue = append(queue, d)
			}
		}
	}
	return 0
}

// refAncestor walks b's parent chain, stopping when it repeats.
func refAncestor(c *graph.Cluster, a, b graph.Ref) bool {
	seen := map[graph.Ref]bool{b: true}
	for ks := c.Kustomizations[b]; ks != nil && ks.Parent != nil; ks = c.Kustomizations[*ks.Parent] {
		if *ks.Parent == a {
			return true
		}
		if seen[*ks.Parent] {
			return false
		}
		seen[*ks.Parent] = true
	}
	return false
}

// graphSeed writes the Flux Kustomizations of a fixture tree in the line format, each
// child of the flux-system Kustomization.
func graphSeed(dir string) string {
	var lines []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".yaml" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var o struct {
				APIVersion string `yaml:"apiVersion"`
				Kind       string `yaml:"kind"`
				Metadata   struct{ Name, Namespace string }
				Spec       struct {
					DependsOn []struct{ Name, Namespace string } `yaml:"dependsOn"`
				}
			}
			if err := dec.Decode(&o); errors.Is(err, io.EOF) || err != nil {
				return nil
			}
			if o.Kind != "Kustomization" || !strings.HasPrefix(o.APIVersion, "kustomize.toolkit.fluxcd.io/") {
				continue
			}
			l := o.Metadata.Namespace + "/" + o.Metadata.Name
			if o.Metadata.Name != "flux-system" {
				l += "<flux-system/flux-system"
			}
			l += ":"
			for _, dep := range o.Spec.DependsOn {
				if dep.Namespace != "" {
					l += " " + dep.Namespace + "/" + dep.Name
				} else {
					l += " " + dep.Name
				}
			}
			lines = append(lines, l)
		}
	})
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestDependsOnPathKeepsGraph: the search must not write into the dependsOn lists it walks.
func TestDependsOnPathKeepsGraph(t *testing.T) {
	c := fuzzCluster("a: b x\nb: c\nc: a")
	v := (&Env{}).view(c)
	if !v.dependsOnPath(graph.Ref{Namespace: "flux-system", Name: "a"}, graph.Ref{Namespace: "flux-system", Name: "c"}) {
		t.Errorf("a has no dependsOn path to c")
	}
	want := fuzzCluster("a: b x\nb: c\nc: a")
	for _, r := range want.Order {
		if got, want := c.Kustomizations[r].Spec.DependsOn, want.Kustomizations[r].Spec.DependsOn; !slices.Equal(got, want) {
			t.Errorf("%s dependsOn = %v after the search, want %v", r, got, want)
		}
	}
}
