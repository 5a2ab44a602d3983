package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
)

func ks(name string) graph.Ref { return graph.Ref{Namespace: "flux-system", Name: name} }

// TestRenames matches a renamed tier by its path, else by its objects, one to one.
func TestRenames(t *testing.T) {
	monitor := map[string]string{
		"grafana/crd.yaml": crd("grafana.integreatly.org", "GrafanaDashboard", "grafanadashboards", "Namespaced"),
		tierFile("apps"):   tier("apps", "./apps", true),
		"apps/dash.yaml":   obj("grafana.integreatly.org/v1beta1", "GrafanaDashboard", "default", "nodes"),
	}
	cases := []struct {
		name       string
		base, head map[string]string
		want       map[graph.Ref]graph.Ref
	}{
		{
			name: "same path",
			base: merge(monitor, map[string]string{tierFile("grafana"): tier("grafana", "./grafana", true)}),
			head: merge(monitor, map[string]string{tierFile("grafana-operator"): tier("grafana-operator", "./grafana", true)}),
			want: map[graph.Ref]graph.Ref{ks("grafana"): ks("grafana-operator")},
		},
		{
			name: "folder renamed too: same objects",
			base: merge(monitor, map[string]string{tierFile("grafana"): tier("grafana", "./grafana", true)}),
			head: merge(map[string]string{
				"operator/crd.yaml":          monitor["grafana/crd.yaml"],
				tierFile("apps"):             monitor[tierFile("apps")],
				"apps/dash.yaml":             monitor["apps/dash.yaml"],
				tierFile("grafana-operator"): tier("grafana-operator", "./operator", true),
			}),
			want: map[graph.Ref]graph.Ref{ks("grafana"): ks("grafana-operator")},
		},
		{
			name: "two candidates with the same path: ambiguous",
			base: merge(monitor, map[string]string{tierFile("grafana"): tier("grafana", "./grafana", true)}),
			head: merge(monitor, map[string]string{
				tierFile("grafana-a"): tier("grafana-a", "./grafana", true),
				tierFile("grafana-b"): tier("grafana-b", "./grafana", true),
			}),
			want: map[graph.Ref]graph.Ref{},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := Renames(renderTree(t, tc.base), renderTree(t, tc.head))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Renames (-want +got):\n%s", d)
			}
		})
	}
}

// TestRenamedProviderKeepsFindings: the missing CRD edge of an unchanged object to a tier
// that is renamed is the same finding at base and head.
func TestRenamedProviderKeepsFindings(t *testing.T) {
	files := func(provider string) map[string]string {
		return map[string]string{
			tierFile(provider): tier(provider, "./grafana", true),
			"grafana/crd.yaml": crd("grafana.integreatly.org", "GrafanaDashboard", "grafanadashboards", "Namespaced"),
			tierFile("apps"):   tier("apps", "./apps", true),
			"apps/dash.yaml":   obj("grafana.integreatly.org/v1beta1", "GrafanaDashboard", "default", "nodes"),
		}
	}
	base, head := renderTree(t, files("grafana")), renderTree(t, files("grafana-operator"))
	env := testEnv()
	atBase, atHead := missingDependsOn(base, head, env), missingDependsOn(head, base, env)
	if len(atBase) != 1 || len(atHead) != 1 {
		t.Fatalf("want one finding each side, got base:\n%s\nhead:\n%s", dump(atBase), dump(atHead))
	}
	renames := Renames(base, head)
	if b, h := atBase[0].KeyAs(renames), atHead[0].Key(); b != h {
		t.Errorf("base key %q != head key %q", b, h)
	}
	if atBase[0].Key() == atHead[0].Key() {
		t.Error("without the rename the keys match: the test does not test the alias")
	}
}

// TestKeyIdentity pins what each kind of finding is identified by: its object (not the
// Kustomization holding it) for object findings, the Kustomization for findings about a
// Kustomization, and the edge's provider or the cycle's members under their head names.
func TestKeyIdentity(t *testing.T) {
	dash := graph.ObjectID{Group: "grafana.integreatly.org", Kind: "GrafanaDashboard", Namespace: "default", Name: "nodes"}
	other := graph.ObjectID{Kind: "ConfigMap", Namespace: "default", Name: "other"}
	alias := map[graph.Ref]graph.Ref{ks("grafana"): ks("grafana-operator"), ks("apps"): ks("apps-v2")}
	onObj := func(rule, holder string, id graph.ObjectID, refs []graph.Ref, key string) Finding {
		return Finding{Rule: rule, Cluster: "dev", Kustomization: "flux-system/" + holder, Object: &id, refs: refs, key: key}
	}
	onKs := func(rule, name string, refs []graph.Ref, key string) Finding {
		return Finding{Rule: rule, Cluster: "dev", Kustomization: "flux-system/" + name, refs: refs, key: key}
	}
	cases := []struct {
		name       string
		base, head Finding
		same       bool
	}{
		{"object finding: holder renamed", onObj("namespace-not-set", "apps", dash, nil, ""), onObj("namespace-not-set", "monitoring", dash, nil, ""), true},
		{"object finding: other object", onObj("namespace-not-set", "apps", dash, nil, ""), onObj("namespace-not-set", "apps", other, nil, ""), false},
		{"variable: other name", onObj("undefined-variable", "apps", dash, nil, "A"), onObj("undefined-variable", "apps", dash, nil, "B"), false},
		{"edge: provider renamed", onObj("missing-depends-on", "apps", dash, []graph.Ref{ks("grafana")}, ""), onObj("missing-depends-on", "apps", dash, []graph.Ref{ks("grafana-operator")}, ""), true},
		{"edge: another provider", onObj("missing-depends-on", "apps", dash, []graph.Ref{ks("grafana")}, ""), onObj("missing-depends-on", "apps", dash, []graph.Ref{ks("infra")}, ""), false},
		{"Kustomization edge: both ends renamed", onKs("missing-depends-on", "apps", []graph.Ref{ks("apps"), ks("grafana")}, ""), onKs("missing-depends-on", "apps-v2", []graph.Ref{ks("apps-v2"), ks("grafana-operator")}, ""), true},
		{"render-error: renamed Kustomization", onKs("render-error", "apps", []graph.Ref{ks("apps")}, ""), onKs("render-error", "apps-v2", []graph.Ref{ks("apps-v2")}, ""), true},
		{"render-error: another Kustomization", onKs("render-error", "apps", []graph.Ref{ks("apps")}, ""), onKs("render-error", "infra", []graph.Ref{ks("infra")}, ""), false},
		{"depends-on-not-found: other entry", onKs("depends-on-not-found", "apps", []graph.Ref{ks("apps")}, "flux-system/a"), onKs("depends-on-not-found", "apps", []graph.Ref{ks("apps")}, "flux-system/b"), false},
		{"cycle: member renamed, other order", onKs("depends-on-cycle", "apps", []graph.Ref{ks("apps"), ks("grafana")}, ""), onKs("depends-on-cycle", "apps-v2", []graph.Ref{ks("grafana-operator"), ks("apps-v2")}, ""), true},
		{"other cluster", onObj("namespace-not-set", "apps", dash, nil, ""), Finding{Rule: "namespace-not-set", Cluster: "prod", Object: &dash}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.base.KeyAs(alias) == tc.head.Key(); got != tc.same {
				t.Errorf("same = %v, want %v:\nbase %q\nhead %q", got, tc.same, tc.base.KeyAs(alias), tc.head.Key())
			}
		})
	}
}
