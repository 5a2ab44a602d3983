package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// clusterIDs lists "name id rootdir rootfile" for every cluster of g.
func clusterIDs(g *graph.Graph) []string {
	var out []string
	for _, c := range g.Clusters {
		out = append(out, c.Name+" "+c.ID+" "+c.RootDir+" "+c.RootFile)
	}
	return out
}

const fluxInstanceHR = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: flux-instance
spec:
  chartRef:
    kind: OCIRepository
    name: flux-instance
  valuesFrom:
    - kind: ConfigMap
      name: flux-instance-values
  values:
    instance:
      sync:
        ref: refs/heads/main
`

func TestDiscoverFluxInstanceValuesFrom(t *testing.T) {
	app := "apps/flux-instance/app/"
	values := "instance:\n  sync:\n    kind: GitRepository\n    url: https://git.example.invalid/home.git\n    path: kubernetes/flux/cluster\n"
	tests := []struct {
		name  string
		files map[string]string
		want  []string
		by    graph.Discovery
		// partial is the first cluster's Partials, checked when set.
		partial []graph.Partial
	}{{
		name: "generated ConfigMap with a name suffix hash written into valuesFrom",
		files: map[string]string{
			app + "helmrelease.yaml": fluxInstanceHR,
			app + "kustomization.yaml": "resources: [helmrelease.yaml]\nconfigurations: [kustomizeconfig.yaml]\n" +
				"configMapGenerator:\n  - name: flux-instance-values\n    files: [values.yaml=helm-values.yaml]\n",
			app + "kustomizeconfig.yaml":      "nameReference:\n  - kind: ConfigMap\n    version: v1\n    fieldSpecs:\n      - {path: spec/valuesFrom/name, kind: HelmRelease}\n",
			app + "helm-values.yaml":          values,
			"kubernetes/flux/cluster/ks.yaml": ks("cluster-apps", "./kubernetes/apps"),
		},
		want: []string{"cluster flux-system/flux-system@GitRepository/flux-system/flux-system kubernetes/flux/cluster " + app + "helmrelease.yaml"},
		by:   graph.DiscoveryRoots,
	}, {
		name: "plain ConfigMap manifest, folder without kustomization.yaml, targetPath and valuesKey",
		files: map[string]string{
			app + "helmrelease.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: flux-instance
spec:
  targetNamespace: flux
  chart:
    spec:
      chart: flux-instance
  valuesFrom:
    - kind: ConfigMap
      name: flux-instance-values
    - kind: ConfigMap
      name: flux-instance-values
      valuesKey: path
      targetPath: instance.sync.path
`,
			app + "values.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flux-instance-values\ndata:\n  values.yaml: |\n" +
				"    instance:\n      sync:\n        kind: OCIRepository\n        url: oci://registry.example.invalid/fleet\n        path: ./clusters/old\n  path: ./clusters/home\n",
			"clusters/home/apps.yaml": ks("apps", "./apps"),
		},
		want: []string{"home flux/flux@OCIRepository/flux/flux clusters/home " + app + "helmrelease.yaml"},
		by:   graph.DiscoveryRoots,
	}, {
		name: "valuesFrom that the repository does not hold: a root not reviewed, no folder reviewed in its place",
		files: map[string]string{
			app + "helmrelease.yaml":          fluxInstanceHR,
			"kubernetes/flux/cluster/ks.yaml": ks("cluster-apps", "./kubernetes/apps"),
			".archive/old/ks.yaml":            ks("old", "./.archive/old/app"),
		},
		want: []string{"flux-system flux-system/flux-system@GitRepository/flux-system/flux-system  " + app + "helmrelease.yaml"},
		by:   graph.DiscoveryRoots,
		partial: []graph.Partial{{Kustomization: "flux-system/flux-system", Reason: "HelmRelease flux-system/flux-instance (" + app + "helmrelease.yaml:2) takes its instance.sync " +
			"from ConfigMap flux-instance-values, which the repository does not hold: its root path is unknown; name the cluster in .tiergate.yaml clusters to review it"}},
	}, {
		name: "FluxInstance patched by its folder's kustomization.yaml",
		files: map[string]string{
			"flux/instance.yaml": "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\n" +
				"spec:\n  sync:\n    kind: GitRepository\n    url: https://git.example.invalid/home.git\n    path: clusters/wrong\n",
			"flux/kustomization.yaml": "resources: [instance.yaml]\npatches:\n  - patch: |-\n      - {op: replace, path: /spec/sync/path, value: clusters/home}\n" +
				"    target: {kind: FluxInstance}\n",
			"clusters/home/apps.yaml": ks("apps", "./apps"),
		},
		want: []string{"home flux-system/flux-system@GitRepository/flux-system/flux-system clusters/home flux/instance.yaml"},
		by:   graph.DiscoveryRoots,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := render(t, tree(t, tt.files), nil)
			if d := cmp.Diff(tt.want, clusterIDs(g)); d != "" {
				t.Errorf("clusters (-want +got):\n%s", d)
			}
			if g.Discovery != tt.by {
				t.Errorf("discovery %q, want %q", g.Discovery, tt.by)
			}
			if tt.partial != nil {
				if d := cmp.Diff(tt.partial, Partials(g.Clusters[0])); d != "" {
					t.Errorf("partials (-want +got):\n%s", d)
				}
			}
		})
	}
}

func TestDiscoverBootstrapRootOfRepository(t *testing.T) {
	for _, p := range []string{"./", ".", `""`} {
		t.Run(p, func(t *testing.T) {
			files := bootstrap("home")
			files["clusters/home/flux-system/gotk-sync.yaml"] = replaceOnce(files["clusters/home/flux-system/gotk-sync.yaml"], "path: ./clusters/home", "path: "+p)
			files["kustomization.yaml"] = "resources: [clusters/home/flux-system, apps.yaml]\n"
			files["apps.yaml"] = ks("apps", "./apps")
			files["apps/cm.yaml"] = cm("default", "a")
			g := render(t, tree(t, files), nil)
			want := []string{"home flux-system/flux-system@GitRepository/flux-system/flux-system  clusters/home/flux-system/gotk-sync.yaml"}
			if d := cmp.Diff(want, clusterIDs(g)); d != "" {
				t.Fatalf("clusters (-want +got):\n%s", d)
			}
			if n := len(g.Clusters[0].Kustomizations); n != 2 {
				t.Errorf("%d Kustomizations, want 2 (flux-system, apps)", n)
			}
		})
	}
}

// TestDiscoverBootstrapRootFromArtifact: a root next to its own OCIRepository or Bucket
// (a root made with flux create source oci|bucket) is a root like a bootstrap one, not a
// reason to fall back to uncovered folders.
func TestDiscoverBootstrapRootFromArtifact(t *testing.T) {
	for _, kind := range []string{"OCIRepository", "Bucket"} {
		t.Run(kind, func(t *testing.T) {
			files := bootstrap("home")
			sync := replaceOnce(files["clusters/home/flux-system/gotk-sync.yaml"], "kind: GitRepository", "kind: "+kind)
			files["clusters/home/flux-system/gotk-sync.yaml"] = replaceOnce(sync, "kind: GitRepository", "kind: "+kind)
			files["clusters/home/apps.yaml"] = ks("apps", "./apps")
			files["apps/cm.yaml"] = cm("default", "a")
			g := render(t, tree(t, files), nil)
			want := []string{"home flux-system/flux-system@" + kind + "/flux-system/flux-system clusters/home clusters/home/flux-system/gotk-sync.yaml"}
			if d := cmp.Diff(want, clusterIDs(g)); d != "" {
				t.Fatalf("clusters (-want +got):\n%s", d)
			}
			if g.Discovery != graph.DiscoveryRoots {
				t.Errorf("discovery %q, want %q", g.Discovery, graph.DiscoveryRoots)
			}
		})
	}
}

// TestArchivedFluxInstanceIsNoCluster: a flux-instance HelmRelease that no cluster applies
// (an .archive/ of a retired installation) is no cluster when another one is applied by
// its own cluster; when none is applied, each is kept.
func TestArchivedFluxInstanceIsNoCluster(t *testing.T) {
	hr := func(p string) string {
		return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: flux-instance\n  namespace: flux-system\n" +
			"spec:\n  chartRef: {kind: OCIRepository, name: flux-instance}\n  values:\n    instance:\n      sync: {kind: GitRepository, url: https://git.example.invalid/h.git, path: " + p + "}\n"
	}
	live := map[string]string{
		"kubernetes/apps/flux-system/flux-instance/helmrelease.yaml": hr("kubernetes/flux/cluster"),
		"kubernetes/flux/cluster/ks.yaml":                            ks("cluster-apps", "./kubernetes/apps"),
		".archive/old-flux/helmrelease.yaml":                         hr(".archive/old"),
		".archive/old/ks.yaml":                                       ks("old", "./.archive/old/app"),
	}
	g := render(t, tree(t, live), nil)
	want := []string{"cluster flux-system/flux-system@GitRepository/flux-system/flux-system kubernetes/flux/cluster kubernetes/apps/flux-system/flux-instance/helmrelease.yaml"}
	if d := cmp.Diff(want, clusterIDs(g)); d != "" {
		t.Errorf("clusters (-want +got):\n%s", d)
	}
	outOfBand := merge(live, map[string]string{"kubernetes/flux/cluster/ks.yaml": ks("cluster-apps", "./kubernetes/other")})
	want = []string{
		"cluster flux-system/flux-system@GitRepository/flux-system/flux-system kubernetes/flux/cluster kubernetes/apps/flux-system/flux-instance/helmrelease.yaml",
		"old flux-system/flux-system@GitRepository/flux-system/flux-system .archive/old .archive/old-flux/helmrelease.yaml",
	}
	if d := cmp.Diff(want, clusterIDs(render(t, tree(t, outOfBand), nil))); d != "" {
		t.Errorf("none applied: clusters (-want +got):\n%s", d)
	}
}

func replaceOnce(s, old, new string) string {
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return s[:i] + new + s[i+len(old):]
		}
	}
	panic("not found: " + old)
}

func TestMatchClusters(t *testing.T) {
	c := func(name, id, file string) *graph.Cluster { return &graph.Cluster{Name: name, ID: id, RootFile: file} }
	boot := "flux-system/flux-system@GitRepository/flux-system/flux-system"
	base := &graph.Graph{Clusters: []*graph.Cluster{
		c("prod", boot, "clusters/prod/flux-system/gotk-sync.yaml"),
		c("staging", boot, "clusters/staging/flux-system/gotk-sync.yaml"),
		c("home", "flux-system/flux-system@OCIRepository/flux-system/flux-system", "flux/instance.yaml"),
		c("gone", "config:gone", ".tiergate.yaml"),
	}}
	head := &graph.Graph{Clusters: []*graph.Cluster{
		c("production", boot, "clusters/production/flux-system/gotk-sync.yaml"),
		c("staging", boot, "clusters/staging/flux-system/gotk-sync.yaml"),
		c("house", "flux-system/flux-system@OCIRepository/flux-system/flux-system", "flux/operator/instance.yaml"),
		c("new", "config:new", ".tiergate.yaml"),
	}}
	var got []string
	for _, p := range graph.MatchClusters(base, head) {
		b, h := "-", "-"
		if p.Base != nil {
			b = p.Base.Name
		}
		if p.Head != nil {
			h = p.Head.Name
		}
		got = append(got, b+" → "+h)
	}
	want := []string{"gone → -", "home → house", "- → new", "prod → production", "staging → staging"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pairs (-want +got):\n%s", d)
	}
	// Two leftovers on each side of one identity are not guessed.
	base = &graph.Graph{Clusters: []*graph.Cluster{c("a", boot, "a"), c("b", boot, "b")}}
	head = &graph.Graph{Clusters: []*graph.Cluster{c("c", boot, "c"), c("d", boot, "d")}}
	got = nil
	for _, p := range graph.MatchClusters(base, head) {
		got = append(got, fmtPair(p))
	}
	if d := cmp.Diff([]string{"a → -", "b → -", "- → c", "- → d"}, got); d != "" {
		t.Errorf("ambiguous pairs (-want +got):\n%s", d)
	}
}

func fmtPair(p graph.ClusterPair) string {
	b, h := "-", "-"
	if p.Base != nil {
		b = p.Base.Name
	}
	if p.Head != nil {
		h = p.Head.Name
	}
	return b + " → " + h
}

// TestOperatorRootFromArtifact: a FluxInstance syncing an OCIRepository reads an artifact
// pushed from elsewhere; unmapped, its root is not reviewed (no invented 'path not found'),
// and mapped through sources, it builds from that folder.
func TestOperatorRootFromArtifact(t *testing.T) {
	files := map[string]string{
		"kubernetes/flux/instance.yaml": "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\n" +
			"spec:\n  sync:\n    kind: OCIRepository\n    url: oci://registry.example.invalid/manifests\n    ref: latest\n    path: ./clusters/home\n",
		"kubernetes/clusters/home/cm.yaml": cm("default", "a"),
	}
	dir := tree(t, files)
	c := render(t, dir, nil).Clusters[0]
	want := []graph.Partial{{Kustomization: "flux-system/flux-system", Reason: "sourceRef OCIRepository/flux-system/flux-system is the cluster's root source, an artifact made outside the repository " +
		"(an OCI artifact pushed from CI, a bucket): map it to the folder it is built from in .tiergate.yaml sources to review it"}}
	if d := cmp.Diff(want, Partials(c)); d != "" {
		t.Errorf("partials (-want +got):\n%s", d)
	}
	if c.Kustomizations[c.Root].Err != nil {
		t.Errorf("root fails: %v", c.Kustomizations[c.Root].Err)
	}
	mapped := render(t, dir, &config.Config{Sources: map[string]string{"OCIRepository/flux-system/flux-system": "kubernetes"}}).Clusters[0]
	if d := cmp.Diff([]string{"flux-system/flux-system ConfigMap/default/a kubernetes/clusters/home/cm.yaml:2"}, objects(mapped)); d != "" {
		t.Errorf("mapped objects (-want +got):\n%s", d)
	}
}

// TestConfiguredRootHidesNothing: a configured cluster's stand-in root never hides the
// real flux-system Kustomization that its path applies with another path; neither is a
// contest, as only one applier exists in the cluster.
func TestConfiguredRootHidesNothing(t *testing.T) {
	dir := tree(t, map[string]string{
		"clusters/prod/flux-system.yaml": ks("flux-system", "./infra"),
		"infra/cm.yaml":                  cm("default", "infra"),
	})
	c := render(t, dir, &config.Config{Clusters: []config.Cluster{{Name: "prod", Path: "clusters/prod"}}}).Clusters[0]
	if d := cmp.Diff([]string{
		"flux-system/flux-system (.tiergate.yaml) Kustomization.kustomize.toolkit.fluxcd.io/flux-system/flux-system clusters/prod/flux-system.yaml:2",
		"flux-system/flux-system ConfigMap/default/infra infra/cm.yaml:2",
	}, objects(c)); d != "" {
		t.Errorf("objects (-want +got):\n%s", d)
	}
	if c.Contested != nil || c.ID != "config:prod" {
		t.Errorf("contested %v, id %q", c.Contested, c.ID)
	}
}
