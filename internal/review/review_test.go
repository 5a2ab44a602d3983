package review

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review/rules"
)

var ref = graph.Ref{Namespace: "flux-system", Name: "apps"}

func obj(kind, ns, name string, data map[string]any) *graph.Object {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": ns},
		"data":     data,
	}}
	return &graph.Object{ID: graph.ObjectID{Kind: kind, Namespace: ns, Name: name}, Owner: ref, File: "apps/" + name + ".yaml", Line: 2, Body: u}
}

// cluster builds a one-Kustomization cluster holding objs.
func cluster(objs ...*graph.Object) *graph.Cluster {
	ks := &graph.Kustomization{Ref: ref, Spec: graph.Spec{Path: "./apps", Prune: true}, File: "clusters/dev/apps.yaml", Line: 1,
		Body: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
			"metadata": map[string]any{"name": "apps", "namespace": "flux-system"}, "spec": map[string]any{"path": "./apps", "prune": true}}},
		Objects: objs}
	c := &graph.Cluster{Name: "dev", RootDir: "clusters/dev", Root: ref, Kustomizations: map[graph.Ref]*graph.Kustomization{ref: ks},
		Order: []graph.Ref{ref}, Owners: map[graph.ObjectID][]*graph.Object{}}
	for _, o := range objs {
		c.Owners[o.ID] = append(c.Owners[o.ID], o)
	}
	return c
}

func TestObjectChangesAndSecretRedaction(t *testing.T) {
	base := cluster(
		obj("ConfigMap", "web", "same", map[string]any{"a": "1"}),
		obj("ConfigMap", "web", "edited", map[string]any{"a": "1"}),
		obj("ConfigMap", "web", "dropped", map[string]any{"a": "1"}),
		obj("Secret", "web", "token", map[string]any{"kept": "czE=", "rotated": "b2xk"}),
	)
	head := cluster(
		obj("ConfigMap", "web", "same", map[string]any{"a": "1"}),
		obj("ConfigMap", "web", "edited", map[string]any{"a": "2"}),
		obj("ConfigMap", "web", "new", map[string]any{"a": "1"}),
		obj("Secret", "web", "token", map[string]any{"kept": "czE=", "rotated": "bmV3"}),
	)
	r := Review(&graph.Graph{Clusters: []*graph.Cluster{base}}, &graph.Graph{Clusters: []*graph.Cluster{head}}, Options{Env: rules.Env{Catalog: rules.NewCatalog(nil), Strict: true}})
	names := func(cs []ObjectChange) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Object.Kind+"/"+c.Object.Name)
		}
		return out
	}
	if d := cmp.Diff([]string{"ConfigMap/new"}, names(r.Added)); d != "" {
		t.Errorf("added (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"ConfigMap/dropped"}, names(r.Removed)); d != "" {
		t.Errorf("removed (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"ConfigMap/edited", "Secret/token"}, names(r.Changed)); d != "" {
		t.Errorf("changed (-want +got):\n%s", d)
	}
	wantSecret := `--- base
+++ head
@@ -1,7 +1,7 @@
 apiVersion: v1
 data:
   kept: <redacted>
-  rotated: <redacted>
+  rotated: <redacted, changed>
 kind: Secret
 metadata:
   name: token
`
	if d := cmp.Diff(wantSecret, r.Changed[1].Diff); d != "" {
		t.Errorf("secret diff (-want +got):\n%s", d)
	}
}

func TestStatusAndOrder(t *testing.T) {
	// A state rule's finding only at base is resolved, at both existing, only at head new.
	nsLess := func(name string) *graph.Object {
		o := obj("ConfigMap", "", name, map[string]any{"a": "1"})
		return o
	}
	base := cluster(nsLess("old"), nsLess("both"))
	head := cluster(nsLess("both"), nsLess("fresh"))
	r := Review(&graph.Graph{Clusters: []*graph.Cluster{base}}, &graph.Graph{Clusters: []*graph.Cluster{head}}, Options{Env: rules.Env{Catalog: rules.NewCatalog(nil), Strict: true}})
	var got []string
	for _, f := range r.Findings {
		got = append(got, string(f.Status)+" "+f.Rule+" "+f.Object.Name)
	}
	want := []string{"new namespace-not-set fresh", "existing namespace-not-set both", "resolved namespace-not-set old"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	for _, tc := range []struct {
		threshold rules.Severity
		fails     bool
	}{{rules.Error, true}, {rules.Warning, true}, {rules.Notice, true}, {rules.None, false}} {
		if r.Fails(tc.threshold) != tc.fails {
			t.Errorf("Fails(%s) = %v", tc.threshold, !tc.fails)
		}
	}
	if d := cmp.Diff(map[rules.Severity]int{rules.Error: 1}, r.Counts(rules.StatusResolved)); d != "" {
		t.Errorf("counts (-want +got):\n%s", d)
	}
}

func TestOnlyExistingFindingsDoNotFail(t *testing.T) {
	c := cluster(obj("ConfigMap", "", "both", map[string]any{"a": "1"}))
	r := Review(&graph.Graph{Clusters: []*graph.Cluster{c}}, &graph.Graph{Clusters: []*graph.Cluster{cluster(obj("ConfigMap", "", "both", map[string]any{"a": "1"}))}}, Options{Env: rules.Env{Catalog: rules.NewCatalog(nil)}})
	if len(r.Findings) != 1 || r.Findings[0].Status != rules.StatusExisting || r.Fails(rules.Notice) {
		t.Fatalf("findings %+v", r.Findings)
	}
}

func TestBrokenParentHidesRatherThanRemoves(t *testing.T) {
	root := graph.Ref{Namespace: "flux-system", Name: "flux-system"}
	child := func() *graph.Cluster {
		c := cluster(obj("ConfigMap", "web", "cm", map[string]any{"a": "1"}))
		c.Root = root
		c.Kustomizations[ref].Parent = &root
		c.Kustomizations[root] = &graph.Kustomization{Ref: root, Body: c.Kustomizations[ref].Body}
		c.Order = []graph.Ref{root, ref}
		return c
	}
	base := child()
	head := child()
	// At head the root fails to build: it emits nothing, so apps is not rendered at all.
	head.Kustomizations[root].Err = &graph.BuildError{Message: "yaml: line 3: did not find expected key", File: "clusters/dev/tiers.yaml", Line: 3}
	delete(head.Kustomizations, ref)
	head.Order = []graph.Ref{root}
	head.Owners = map[graph.ObjectID][]*graph.Object{}
	r := Review(&graph.Graph{Clusters: []*graph.Cluster{base}}, &graph.Graph{Clusters: []*graph.Cluster{head}}, Options{Env: rules.Env{Catalog: rules.NewCatalog(nil)}})
	if len(r.Removed) != 0 || len(r.KustomizationChanges) != 0 {
		t.Fatalf("removed %v, Kustomization changes %v: a failed build removes nothing", r.Removed, r.KustomizationChanges)
	}
}

// TestFailedBuildResolvesNothing: a finding about an object of a Kustomization that fails
// at head is not resolved (its absence is unknown); one of a working Kustomization is.
func TestFailedBuildResolvesNothing(t *testing.T) {
	nsLess := obj("ConfigMap", "", "nsless", map[string]any{"a": "1"}) // namespace-not-set
	for _, tc := range []struct {
		name string
		err  *graph.BuildError
		want []string
	}{
		{"build fails", &graph.BuildError{Message: "accumulating resources", File: "apps/kustomization.yaml", Line: 4},
			[]string{"new render-error flux-system/apps"}},
		{"build works", nil, []string{"resolved namespace-not-set flux-system/apps"}},
	} {
		head := cluster()
		head.Kustomizations[ref].Err = tc.err
		r := Review(&graph.Graph{Clusters: []*graph.Cluster{cluster(nsLess)}}, &graph.Graph{Clusters: []*graph.Cluster{head}},
			Options{Env: rules.Env{Catalog: rules.NewCatalog(nil), Strict: true}})
		var got []string
		for _, f := range r.Findings {
			got = append(got, string(f.Status)+" "+f.Rule+" "+f.Kustomization)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}

func TestClusterGoneAtHead(t *testing.T) {
	base := cluster(obj("Namespace", "", "web", nil), obj("ConfigMap", "web", "cm", map[string]any{"a": "1"}))
	r := Review(&graph.Graph{Clusters: []*graph.Cluster{base}}, &graph.Graph{}, Options{Env: rules.Env{Catalog: rules.NewCatalog(nil)}})
	want := []string{"new error render-error flux-system/apps clusters/dev/apps.yaml:1 Cluster dev is gone at head: its root Kustomization flux-system/apps still runs in the cluster and fails with 'kustomization path not found: clusters/dev'."}
	var got []string
	for _, f := range r.Findings {
		got = append(got, fmt.Sprintf("%s %s %s %s %s:%d %s", f.Status, f.Severity, f.Rule, f.Kustomization, f.File, f.Line, f.Message))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

// TestRootUnreadableIsNotGone: a root file that does not parse at head (discovery then
// finds the folder, under another cluster identity) leaves the cluster not reviewed at
// head, never "gone": the render-error of the head's stand-in says what is wrong.
func TestRootUnreadableIsNotGone(t *testing.T) {
	base := cluster(obj("ConfigMap", "web", "cm", map[string]any{"a": "1"}))
	base.ID, base.RootFile = "flux-system/apps@GitRepository/flux-system/flux-system", "clusters/dev/apps.yaml"
	head := cluster()
	head.ID, head.RootFile = "folder:clusters/dev", "clusters/dev/apps.yaml"
	head.Kustomizations[ref].Spec.SourceRef.Kind = "GitRepository"
	head.Kustomizations[ref].Err = &graph.BuildError{Message: "clusters/dev/apps.yaml:9 is not valid YAML: did not find expected key", File: "clusters/dev/apps.yaml", Line: 9}
	r := Review(&graph.Graph{Clusters: []*graph.Cluster{base}}, &graph.Graph{Clusters: []*graph.Cluster{head}}, Options{Env: rules.Env{Catalog: rules.NewCatalog(nil)}})
	var got []string
	for _, f := range r.Findings {
		got = append(got, fmt.Sprintf("%s %s %s %s %s:%d %s", f.Status, f.Severity, f.Rule, f.Kustomization, f.File, f.Line, f.Message))
	}
	want := []string{"new error render-error flux-system/apps clusters/dev/apps.yaml:9 Kustomization flux-system/apps fails to build, so Flux applies none of it: clusters/dev/apps.yaml:9 is not valid YAML: did not find expected key"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	wantU := []Unreviewed{{Cluster: "dev", Kind: "Kustomization", Name: "flux-system/apps", Kustomization: "flux-system/apps",
		Reason: "cluster dev is not reviewed at head: its root clusters/dev/apps.yaml cannot be read there (see its render-error), so what the cluster runs after the merge is unknown; it is not gone",
		File:   "clusters/dev/apps.yaml", Line: 1}}
	if d := cmp.Diff(wantU, r.Unreviewed); d != "" {
		t.Errorf("unreviewed (-want +got):\n%s", d)
	}
}

// TestSOPSSecretUnchangedIsNotChanged: a SOPS-encrypted Secret rendered identically at
// base and head is no change, and one whose sops block changes shows only that block
// changed (the marker compares the block, not the object around it).
func TestSOPSSecretUnchangedIsNotChanged(t *testing.T) {
	secret := func(mac string) *graph.Object {
		o := obj("Secret", "flux-system", "cluster-secrets", nil)
		o.Body.Object["stringData"] = map[string]any{"TOKEN": "ENC[AES256_GCM,data:abc,type:str]"}
		o.Body.Object["sops"] = map[string]any{"mac": mac, "lastmodified": "2026-01-01T00:00:00Z"}
		return o
	}
	review := func(b, h *graph.Object) []ObjectChange {
		return Review(&graph.Graph{Clusters: []*graph.Cluster{cluster(b)}}, &graph.Graph{Clusters: []*graph.Cluster{cluster(h)}},
			Options{Env: rules.Env{Catalog: rules.NewCatalog(nil), Strict: true}}).Changed
	}
	if got := review(secret("ENC[m1]"), secret("ENC[m1]")); len(got) != 0 {
		t.Errorf("unchanged SOPS Secret reported changed:\n%s", got[0].Diff)
	}
	want := `--- base
+++ head
@@ -4,7 +4,7 @@
 metadata:
   name: cluster-secrets
   namespace: flux-system
-sops: <redacted>
+sops: <redacted, changed>
 stringData:
   TOKEN: <redacted>
 
`
	got := review(secret("ENC[m1]"), secret("ENC[m2]"))
	if len(got) != 1 {
		t.Fatalf("changed %d objects, want 1", len(got))
	}
	if d := cmp.Diff(want, got[0].Diff); d != "" {
		t.Errorf("diff (-want +got):\n%s", d)
	}
}

// TestSharedCauseListsClusters: two clusters applying one folder with a namespace-less
// ConfigMap give one cause: each copy lists both clusters, and it counts once.
func TestSharedCauseListsClusters(t *testing.T) {
	named := func(name string, objs ...*graph.Object) *graph.Cluster {
		c := cluster(objs...)
		c.Name = name
		return c
	}
	shared := func() *graph.Object { return obj("ConfigMap", "", "shared", map[string]any{"a": "1"}) }
	base := &graph.Graph{Clusters: []*graph.Cluster{named("production"), named("staging")}}
	head := &graph.Graph{Clusters: []*graph.Cluster{
		named("production", shared()),
		named("staging", shared(), obj("ConfigMap", "", "staging-only", nil)),
	}}
	r := Review(base, head, Options{Env: rules.Env{Catalog: rules.NewCatalog(nil), Strict: true}})
	type row struct {
		Rule, Cluster, Name string
		Clusters            []string
	}
	var got []row
	for _, f := range r.Findings {
		if f.Rule == "namespace-not-set" {
			got = append(got, row{f.Rule, f.Cluster, f.Object.Name, f.Clusters})
		}
	}
	want := []row{
		{"namespace-not-set", "production", "shared", []string{"production", "staging"}},
		{"namespace-not-set", "staging", "shared", []string{"production", "staging"}},
		{"namespace-not-set", "staging", "staging-only", nil},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[rules.Severity]int{rules.Error: 2}, r.Counts(rules.StatusNew)); d != "" {
		t.Errorf("new counts (-want +got):\n%s", d)
	}
}
