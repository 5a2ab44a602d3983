package render

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/kustomize"
	"github.com/tiergate/tiergate/internal/render/rendertest"
)

// tree writes files (path → content) into a new temporary directory.
func tree(t testing.TB, files map[string]string) string { t.Helper(); return rendertest.Tree(t, files) }

func bootstrap(cluster string) map[string]string {
	return map[string]string{
		"clusters/" + cluster + "/flux-system/gotk-sync.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  url: https://git.example.invalid/fleet.git
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m
  path: ./clusters/` + cluster + `
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`,
		"clusters/" + cluster + "/flux-system/kustomization.yaml": "resources: [gotk-sync.yaml]\n",
	}
}

func ks(name, path string, spec ...string) string {
	out := `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: ` + name + `
  namespace: flux-system
spec:
  interval: 10m
  path: ` + path + `
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`
	for _, l := range spec {
		out += "  " + l + "\n"
	}
	return out
}

func merge(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func render(t *testing.T, dir string, cfg *config.Config) *graph.Graph {
	t.Helper()
	g, err := Render(context.Background(), dir, Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// objects lists "owner id file:line" for every object of cluster c, sorted.
func objects(c *graph.Cluster) []string {
	var out []string
	for _, ref := range c.Order {
		for _, o := range c.Kustomizations[ref].Objects {
			out = append(out, ref.String()+" "+o.ID.String()+" "+o.File+":"+itoa(o.Line))
		}
	}
	sort.Strings(out)
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestDiscoverBootstrapClusters(t *testing.T) {
	dir := tree(t, merge(bootstrap("dev"), bootstrap("prod"),
		map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"), "apps/cm.yaml": cm("default", "a")}))
	g := render(t, dir, nil)
	var got []string
	for _, c := range g.Clusters {
		got = append(got, c.Name+" "+c.Root.String()+" "+c.RootDir)
	}
	want := []string{"dev flux-system/flux-system clusters/dev", "prod flux-system/flux-system clusters/prod"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("clusters (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{
		"flux-system/apps ConfigMap/default/a apps/cm.yaml:2",
		"flux-system/flux-system GitRepository.source.toolkit.fluxcd.io/flux-system/flux-system clusters/dev/flux-system/gotk-sync.yaml:2",
		"flux-system/flux-system Kustomization.kustomize.toolkit.fluxcd.io/flux-system/apps clusters/dev/apps.yaml:2",
		"flux-system/flux-system Kustomization.kustomize.toolkit.fluxcd.io/flux-system/flux-system clusters/dev/flux-system/gotk-sync.yaml:10",
	}, objects(g.Cluster("dev"))); d != "" {
		t.Fatalf("objects (-want +got):\n%s", d)
	}
}

func cm(ns, name string, data ...string) string {
	out := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"
	if ns != "" {
		out += "  namespace: " + ns + "\n"
	}
	out += "data:\n"
	if len(data) == 0 {
		data = []string{"k: v"}
	}
	for _, d := range data {
		out += "  " + d + "\n"
	}
	return out
}

func TestDiscoverFluxInstance(t *testing.T) {
	dir := tree(t, map[string]string{
		"flux/instance.yaml": `apiVersion: fluxcd.controlplane.io/v1
kind: FluxInstance
metadata:
  name: flux
  namespace: flux-system
spec:
  sync:
    kind: GitRepository
    url: https://git.example.invalid/home.git
    path: clusters/home
`,
		"clusters/home/apps.yaml": ks("apps", "./apps"),
		"apps/cm.yaml":            cm("default", "a"),
	})
	g := render(t, dir, nil)
	// flux-operator names the root Kustomization and its source after the namespace.
	if len(g.Clusters) != 1 || g.Clusters[0].Name != "home" || g.Clusters[0].Root != (graph.Ref{Namespace: "flux-system", Name: "flux-system"}) {
		t.Fatalf("clusters: %+v", g.Clusters)
	}
	apps := g.Clusters[0].Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if apps == nil || apps.Skipped != "" || len(apps.Objects) != 1 {
		t.Fatalf("apps not rendered from the FluxInstance source: %+v", apps)
	}
}

func TestFallbackRootPerUncoveredFolder(t *testing.T) {
	dir := tree(t, map[string]string{
		"kubernetes/flux/cluster/ks.yaml":    ks("cluster-apps", "./kubernetes/apps"),
		"kubernetes/apps/kustomization.yaml": "resources: [web/ks.yaml]\n",
		"kubernetes/apps/web/ks.yaml":        ks("web", "./kubernetes/apps/web/app"),
		"kubernetes/apps/web/app/cm.yaml":    cm("default", "web"),
	})
	g := render(t, dir, nil)
	if len(g.Clusters) != 1 {
		t.Fatalf("want one cluster, got %d", len(g.Clusters))
	}
	c := g.Clusters[0]
	if c.Name != "cluster" || c.RootDir != "kubernetes/flux/cluster" {
		t.Fatalf("cluster %s at %s", c.Name, c.RootDir)
	}
	if d := cmp.Diff([]string{
		"flux-system/cluster-apps Kustomization.kustomize.toolkit.fluxcd.io/flux-system/web kubernetes/apps/web/ks.yaml:2",
		"flux-system/flux-system Kustomization.kustomize.toolkit.fluxcd.io/flux-system/cluster-apps kubernetes/flux/cluster/ks.yaml:2",
		"flux-system/web ConfigMap/default/web kubernetes/apps/web/app/cm.yaml:2",
	}, objects(c)); d != "" {
		t.Fatalf("objects (-want +got):\n%s", d)
	}
}

func TestGeneratorAndTransforms(t *testing.T) {
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/apps.yaml": ks("apps", "./apps", "targetNamespace: web", "namePrefix: p-"),
		"apps/a.yaml":            cm("", "a"),
		"apps/notes.txt":         "not yaml",
		"apps/sub/b.yml":         cm("", "b"),
		"apps/base/kustomization.yaml": `resources: [c.yaml]
configMapGenerator:
  - name: gen
    literals: [x=y]
`,
		"apps/base/c.yaml": cm("", "c"),
	}))
	c := render(t, dir, nil).Cluster("dev")
	apps := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	var got []string
	for _, o := range apps.Objects {
		got = append(got, o.ID.String()+" "+o.File+":"+itoa(o.Line))
	}
	sort.Strings(got)
	want := []string{
		"ConfigMap/web/p-a apps/a.yaml:2",
		"ConfigMap/web/p-b apps/sub/b.yml:2",
		"ConfigMap/web/p-c apps/base/c.yaml:2",
		"ConfigMap/web/p-gen-6gc9d749f7 apps/base/kustomization.yaml:3", // the generator entry's name
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("objects (-want +got):\n%s", d)
	}
	for _, o := range apps.Objects {
		if _, ok := o.Body.GetAnnotations()[originAnnotation]; ok {
			t.Errorf("%s keeps the origin annotation tiergate added", o.ID)
		}
	}
}

func TestSubstitutionFixpoint(t *testing.T) {
	// apps reads ConfigMap vars, which a sibling built in the same wave emits: the second
	// round resolves it.
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/tiers.yaml": ks("vars", "./vars") + "---\n" +
			ks("apps", "./apps", "postBuild:", "  substitute:", "    ZONE: eu", "  substituteFrom:", "    - kind: ConfigMap", "      name: vars"),
		"vars/vars.yaml": cm("flux-system", "vars", "DOMAIN: example.org", "ZONE: us"),
		"apps/app.yaml": cm("default", "app", "host: web.${DOMAIN}", "zone: ${ZONE}", "tz: ${TZ}", "def: ${MISSING:=fallback}") + "---\n" +
			strings.Replace(cm("default", "raw", "host: ${DOMAIN}"), "metadata:\n", "metadata:\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\n", 1),
	}))
	apps := render(t, dir, nil).Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if apps.Err != nil {
		t.Fatal(apps.Err)
	}
	got := map[string]any{}
	for _, o := range apps.Objects {
		got[o.ID.Name] = map[string]any{"data": o.Body.Object["data"], "undefined": o.Undefined}
	}
	want := map[string]any{
		"app": map[string]any{"data": map[string]any{"host": "web.example.org", "zone": "eu", "tz": nil, "def": "fallback"}, "undefined": []string{"TZ"}},
		"raw": map[string]any{"data": map[string]any{"host": "${DOMAIN}"}, "undefined": []string(nil)},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

func TestSubstituteFromNotInRepository(t *testing.T) {
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/apps.yaml": ks("apps", "./apps", "postBuild:", "  substituteFrom:", "    - kind: Secret", "      name: runtime-only"),
		"apps/app.yaml":          cm("default", "app", "host: ${DOMAIN}"),
	}))
	c := render(t, dir, nil).Cluster("dev")
	apps := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if apps.Err != nil || len(apps.Objects) != 1 {
		t.Fatalf("err %v, %d objects", apps.Err, len(apps.Objects))
	}
	o := apps.Objects[0]
	if o.Undefined != nil || o.Literal != nil || o.Body.Object["data"].(map[string]any)["host"] != "${DOMAIN}" {
		t.Fatalf("variables of a runtime-only source must stay unchecked: %+v %+v %v", o.Undefined, o.Literal, o.Body.Object["data"])
	}
	want := []graph.Partial{{Kustomization: "flux-system/apps", Reason: "substituteFrom Secret/runtime-only not in the repository (created at runtime or out of band): its variables are not checked"}}
	if d := cmp.Diff(want, Partials(c)); d != "" {
		t.Fatalf("partials (-want +got):\n%s", d)
	}
}

func TestRemoteResourcesAreSkipped(t *testing.T) {
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/apps.yaml": ks("apps", "./apps"),
		"apps/kustomization.yaml": `resources:
  - https://raw.githubusercontent.com/example/x/main/a.yaml
  - github.com/example/y//deploy?ref=v1
  - local
`,
		"apps/local/kustomization.yaml": "resources: [cm.yaml, 'https://example.com/nested.yaml']\n",
		"apps/local/cm.yaml":            cm("default", "local"),
	}))
	apps := render(t, dir, nil).Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if apps.Err != nil {
		t.Fatal(apps.Err)
	}
	want := []string{"github.com/example/y//deploy?ref=v1", "https://example.com/nested.yaml", "https://raw.githubusercontent.com/example/x/main/a.yaml"}
	if d := cmp.Diff(want, apps.Remote); d != "" {
		t.Fatalf("remote (-want +got):\n%s", d)
	}
	if len(apps.Objects) != 1 || apps.Objects[0].ID.Name != "local" {
		t.Fatalf("objects: %+v", apps.Objects)
	}
}

func TestBuildErrorsAreData(t *testing.T) {
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/tiers.yaml":   ks("broken", "./broken") + "---\n" + ks("gone", "./nowhere") + "---\n" + ks("ok", "./ok"),
		"broken/kustomization.yaml": "resources:\n  - a.yaml\n  - missing.yaml\n",
		"broken/a.yaml":             cm("default", "a"),
		"ok/cm.yaml":                cm("default", "ok"),
	}))
	c := render(t, dir, nil).Cluster("dev")
	got := map[string]string{}
	for _, ref := range c.Order {
		if e := c.Kustomizations[ref].Err; e != nil {
			got[ref.Name] = e.File + ":" + itoa(e.Line)
		}
	}
	want := map[string]string{"broken": "broken/kustomization.yaml:3", "gone": "clusters/dev/tiers.yaml:21"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("errors (-want +got):\n%s", d)
	}
	if n := len(c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "ok"}].Objects); n != 1 {
		t.Fatalf("ok has %d objects", n)
	}
}

func TestUnmappedSourceIsPartialAndMappedSourceBuilds(t *testing.T) {
	files := merge(bootstrap("dev"), map[string]string{
		"clusters/dev/apps.yaml": strings.Replace(ks("apps", "./apps"), "kind: GitRepository\n    name: flux-system", "kind: OCIRepository\n    name: apps", 1),
		"oci/apps/cm.yaml":       cm("default", "a"),
		"clusters/dev/oci.yaml":  "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  url: oci://example.invalid/apps\n",
	})
	c := render(t, tree(t, files), nil).Cluster("dev")
	want := []graph.Partial{{Kustomization: "flux-system/apps", Reason: "sourceRef OCIRepository/flux-system/apps is not the cluster's source and has no folder in .tiergate.yaml sources"}}
	if d := cmp.Diff(want, Partials(c)); d != "" {
		t.Fatalf("partials (-want +got):\n%s", d)
	}
	cfg := &config.Config{Sources: map[string]string{"OCIRepository/*/*": "oci"}}
	c = render(t, tree(t, files), cfg).Cluster("dev")
	if apps := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]; len(apps.Objects) != 1 || apps.Objects[0].File != "oci/apps/cm.yaml" {
		t.Fatalf("mapped source: %+v", apps)
	}
}

func TestKustomizationDefaults(t *testing.T) {
	files := merge(bootstrap("dev"), map[string]string{
		"clusters/dev/apps.yaml": ks("apps", "./apps"),
		"clusters/dev/vars.yaml": cm("flux-system", "vars", "DOMAIN: example.org"),
		"apps/cm.yaml":           cm("default", "a", "host: ${DOMAIN}"),
	})
	cfg := &config.Config{KustomizationDefaults: map[string]any{
		"postBuild": map[string]any{"substituteFrom": []any{map[string]any{"kind": "ConfigMap", "name": "vars"}}},
	}}
	apps := render(t, tree(t, files), cfg).Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if got := apps.Objects[0].Body.Object["data"].(map[string]any)["host"]; got != "example.org" {
		t.Fatalf("host = %v", got)
	}
}

func TestSelfAndCyclicParentsTerminate(t *testing.T) {
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/a.yaml": ks("a", "./a"),
		"a/b.yaml":            ks("b", "./b"),
		"b/a.yaml":            ks("a", "./a"),
	}))
	c := render(t, dir, nil).Cluster("dev")
	var got []string
	for _, ref := range c.Order {
		got = append(got, ref.Name)
	}
	if d := cmp.Diff([]string{"flux-system", "a", "b"}, got); d != "" {
		t.Fatalf("order (-want +got):\n%s", d)
	}
	if n := len(c.Owners[graph.ObjectID{Group: kustomize.FluxGroup, Kind: "Kustomization", Namespace: "flux-system", Name: "a"}]); n != 2 {
		t.Fatalf("Kustomization a should have 2 owners (root and b), got %d", n)
	}
}

// TestApplySourceIgnore follows source-controller's GitRepository reconciler and
// storage.SourceIgnoreFilter: the .sourceignore files and spec.ignore replace the default
// exclusions (VCS patterns stay); without any pattern the defaults apply; every entry is
// judged on its own, so a negation keeps a file below an ignored folder; a .sourceignore
// is read through a symlink that stays in the tree, and symlinks are left out.
func TestApplySourceIgnore(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		links map[string]string // path → target
		extra string
		want  []string
	}{
		{"patterns replace the defaults", map[string]string{
			".sourceignore":        "drafts/\n*.secret.yaml\n",
			"apps/.sourceignore":   "local.yaml\n",
			"apps/a.yaml":          "a",
			"apps/local.yaml":      "x",
			"apps/x.secret.yaml":   "s",
			"drafts/d.yaml":        "d",
			".github/workflow.yml": "w",
			"img/logo.png":         "p",
			"keep.yaml":            "k",
		}, nil, "keep.yaml\n", []string{".github/workflow.yml", ".sourceignore", "apps/.sourceignore", "apps/a.yaml", "img/logo.png"}},
		{"no pattern: the defaults", map[string]string{
			"apps/a.yaml":          "a",
			".github/workflow.yml": "w",
			"img/logo.png":         "p",
			".sops.yaml":           "s",
		}, nil, "", []string{"apps/a.yaml"}},
		{"negation below an ignored folder", map[string]string{
			"keepdir/a.yaml":    "a",
			"keepdir/keep.yaml": "k",
		}, nil, "keepdir/\n!keepdir/keep.yaml\n", []string{"keepdir/keep.yaml"}},
		{"a .sourceignore through a symlink", map[string]string{
			"apps/rules":       "skip/\n",
			"apps/skip/s.yaml": "s",
			"apps/a.yaml":      "a",
		}, map[string]string{"apps/.sourceignore": "rules", "apps/link.yaml": "a.yaml"}, "", []string{"apps/a.yaml", "apps/rules"}},
		{"a symlink out of the tree is not read", map[string]string{
			"apps/skip/s.yaml": "s",
		}, map[string]string{"apps/.sourceignore": "../../outside"}, "", []string{"apps/skip/s.yaml"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := tree(t, tc.files)
			os.WriteFile(filepath.Join(filepath.Dir(dir), "outside"), []byte("skip/\n"), 0o644)
			for p, target := range tc.links {
				if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(p))); err != nil {
					t.Fatal(err)
				}
			}
			snap := fsys.Ignored(mustSnapshot(t, dir), tc.extra, nil)
			var got []string
			for rel, typ := range snap.Types {
				if typ.IsRegular() {
					got = append(got, rel)
				}
			}
			sort.Strings(got)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("kept (-want +got):\n%s", d)
			}
		})
	}
}

func TestKustomizationWithoutPathIsNoRoot(t *testing.T) {
	// A Kustomization of another source with no path (its source's root) or a path above
	// its own folder must not be taken for a bootstrap root.
	dir := tree(t, merge(bootstrap("prod"), map[string]string{
		"clusters/prod/podinfo.yaml": strings.Replace(strings.Replace(ks("podinfo", "./apps"), "  path: ./apps\n", "", 1), "name: flux-system\n", "name: podinfo\n", 1),
		"clusters/prod/all.yaml":     ks("all", "./clusters"),
		"apps/cm.yaml":               cm("default", "a"),
	}))
	g := render(t, dir, nil)
	if len(g.Clusters) != 1 || g.Clusters[0].Name != "prod" {
		t.Fatalf("clusters: %d %v", len(g.Clusters), g.Clusters)
	}
	want := []graph.Partial{{Kustomization: "flux-system/podinfo", Reason: "sourceRef GitRepository/flux-system/podinfo is not the cluster's source and has no folder in .tiergate.yaml sources" +
		"; no such source is rendered in the cluster either, so Flux reports it not found unless it is created out of band"}}
	if d := cmp.Diff(want, Partials(g.Clusters[0])); d != "" {
		t.Fatalf("partials (-want +got):\n%s", d)
	}
}

func TestApplySourceIgnoreDropsSymlinks(t *testing.T) {
	dir := tree(t, map[string]string{"apps/cm.yaml": "a", "shared/x.yaml": "x"})
	if err := os.Symlink("../shared/x.yaml", filepath.Join(dir, "apps", "x.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("apps", filepath.Join(dir, "apps-link")); err != nil {
		t.Fatal(err)
	}
	snap := fsys.Ignored(mustSnapshot(t, dir), "", nil)
	for _, p := range []string{"apps/x.yaml", "apps-link"} {
		if st := snap.State(p); st != "absent" {
			t.Errorf("%s: symlinks are not part of a source-controller artifact, want it left out, got %s", p, st)
		}
	}
	if d := cmp.Diff([]string{"cm.yaml"}, snap.Names["apps"]); d != "" {
		t.Errorf("apps entries (-want +got):\n%s", d)
	}
}

func TestYAMLErrorLineCountsFromFileStart(t *testing.T) {
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/apps.yaml": ks("apps", "./apps"),
		"apps/cms.yaml":          cm("default", "a") + "---\n" + cm("default", "b") + "  bad: [\n",
	}))
	apps := render(t, dir, nil).Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if apps.Err == nil || apps.Err.File != "apps/cms.yaml" || apps.Err.Line != 16 {
		t.Fatalf("error %+v, want apps/cms.yaml:16", apps.Err)
	}
}

// TestInvalidKustomizationFailsItsParent: a child Kustomization that the API server
// rejects fails its parent's apply; the error names every rejected child at its field.
func TestInvalidKustomizationFailsItsParent(t *testing.T) {
	const sourceRef = "  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
	const postBuild = "  postBuild:\n    substitute:\n      REPLICAS: \"3\"\n"
	valid := ks("apps", "./apps") + postBuild
	cases := []struct {
		name string
		apps string // clusters/dev/apps.yaml
		more string // clusters/dev/more.yaml, "" for none
		want graph.BuildError
	}{
		{
			name: "dependsOn of strings",
			apps: ks("apps", "./apps") + "  dependsOn:\n    - infra\n" + postBuild,
			want: graph.BuildError{Message: "the API server rejects Kustomization flux-system/apps: spec.dependsOn: expected an object, got a string (clusters/dev/apps.yaml:13)", File: "clusters/dev/apps.yaml", Line: 13, Rejected: 1},
		},
		{
			name: "prune as a string",
			apps: strings.Replace(valid, "  prune: true\n", "  prune: \"true\"\n", 1),
			want: graph.BuildError{Message: "the API server rejects Kustomization flux-system/apps: spec.prune: expected a boolean, got a string (clusters/dev/apps.yaml:9)", File: "clusters/dev/apps.yaml", Line: 9, Rejected: 1},
		},
		{
			name: "no sourceRef",
			apps: strings.Replace(valid, sourceRef, "", 1),
			want: graph.BuildError{Message: "the API server rejects Kustomization flux-system/apps: spec.sourceRef is required (clusters/dev/apps.yaml:6)", File: "clusters/dev/apps.yaml", Line: 6, Rejected: 1},
		},
		{
			name: "substitute of a number",
			apps: strings.Replace(valid, `"3"`, "3", 1),
			want: graph.BuildError{Message: "the API server rejects Kustomization flux-system/apps: spec.postBuild.substitute: expected a string, got a number (clusters/dev/apps.yaml:13)", File: "clusters/dev/apps.yaml", Line: 13, Rejected: 1},
		},
		{
			name: "name with a space",
			apps: strings.Replace(valid, "name: apps\n", "name: my apps\n", 1),
			want: graph.BuildError{Message: "the API server rejects Kustomization flux-system/my apps: metadata.name \"my apps\": " +
				"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
				`(e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*') (clusters/dev/apps.yaml:2)`,
				File: "clusters/dev/apps.yaml", Line: 2, Rejected: 1},
		},
		{
			name: "name in upper case",
			apps: strings.Replace(valid, "name: apps\n", "name: Apps\n", 1),
			want: graph.BuildError{Message: "the API server rejects Kustomization flux-system/Apps: metadata.name \"Apps\": " +
				"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
				`(e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*') (clusters/dev/apps.yaml:2)`,
				File: "clusters/dev/apps.yaml", Line: 2, Rejected: 1},
		},
		{
			name: "two rejected each at its field",
			apps: strings.Replace(valid, "  prune: true\n", "  prune: \"yes\"\n", 1),
			more: "---\n" + strings.Replace(ks("more", "./apps"), "  interval: 10m\n", "", 1) + "---\n" + strings.Replace(ks("other", "./apps"), "  path: ./apps\n", "  path: [./apps]\n", 1),
			want: graph.BuildError{Message: "the API server rejects Kustomization flux-system/apps: spec.prune: expected a boolean, got a string (clusters/dev/apps.yaml:9); Kustomization flux-system/more: spec.interval is required (clusters/dev/more.yaml:7); Kustomization flux-system/other: spec.path: expected a string, got a list (clusters/dev/more.yaml:21)", File: "clusters/dev/apps.yaml", Line: 9, Rejected: 3},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"clusters/dev/apps.yaml": tc.apps, "apps/cm.yaml": cm("default", "a")}
			if tc.more != "" {
				files["clusters/dev/more.yaml"] = tc.more
			}
			c := render(t, tree(t, merge(bootstrap("dev"), files)), nil).Cluster("dev")
			root := c.Kustomizations[c.Root]
			if diff := cmp.Diff(&tc.want, root.Err); diff != "" {
				t.Fatalf("root error (-want +got):\n%s", diff)
			}
			if _, ok := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]; ok {
				t.Fatal("an invalid Kustomization is not a node")
			}
		})
	}
}

// TestKustomizationWithoutSpec: the schema does not require spec, so the API server
// accepts a Kustomization without one and the parent applies; kustomize-controller then
// fails that Kustomization (no source to build from). A spec that is not an object is
// rejected, failing the parent.
func TestKustomizationWithoutSpec(t *testing.T) {
	const noSpec = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\n"
	for _, tc := range []struct {
		name, apps string
		rootErr    *graph.BuildError
		appsErr    *graph.BuildError // nil: apps is not a node
	}{
		{"no spec", noSpec, nil, &graph.BuildError{Message: kustomize.ErrNoSpec.Error(), File: "clusters/dev/apps.yaml", Line: 2}},
		{"spec: null", noSpec + "spec:\n", nil, &graph.BuildError{Message: kustomize.ErrNoSpec.Error(), File: "clusters/dev/apps.yaml", Line: 2}},
		{"spec of a string", noSpec + "spec: ./apps\n", &graph.BuildError{Message: "the API server rejects Kustomization flux-system/apps: spec: expected an object, got a string (clusters/dev/apps.yaml:6)",
			File: "clusters/dev/apps.yaml", Line: 6, Rejected: 1}, nil}, // the spec line
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := render(t, tree(t, merge(bootstrap("dev"), map[string]string{"clusters/dev/apps.yaml": tc.apps})), nil).Cluster("dev")
			if diff := cmp.Diff(tc.rootErr, c.Kustomizations[c.Root].Err); diff != "" {
				t.Errorf("root error (-want +got):\n%s", diff)
			}
			apps := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
			if tc.appsErr == nil {
				if apps != nil {
					t.Errorf("apps is a node")
				}
				return
			}
			if apps == nil {
				t.Fatal("apps is not a node")
			}
			if diff := cmp.Diff(tc.appsErr, apps.Err); diff != "" || len(apps.Objects) != 0 || *apps.Parent != c.Root {
				t.Errorf("apps: error (-want +got):\n%s objects %d, parent %v", diff, len(apps.Objects), apps.Parent)
			}
		})
	}
}

// TestSubstitutionSkipsObjectsWithoutDollar: objects without '$' skip envsubst, yet an
// invalid variable name still fails the build on its first object, as in Flux.
func TestSubstitutionSkipsObjectsWithoutDollar(t *testing.T) {
	dir := tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/tiers.yaml": ks("ok", "./ok", "postBuild:", "  substitute:", "    ZONE: eu") + "---\n" +
			ks("bad", "./bad", "postBuild:", "  substitute:", "    my-zone: eu"),
		"ok/a.yaml":  cm("default", "a", "x: plain") + "---\n" + cm("default", "b", "zone: ${ZONE}") + "---\n" + cm("default", "c", "y: plain"),
		"bad/a.yaml": cm("default", "a", "x: plain") + "---\n" + cm("default", "b", "y: plain"),
	}))
	c := render(t, dir, nil).Cluster("dev")
	got := map[string]any{}
	for _, o := range c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "ok"}].Objects {
		got[o.ID.Name] = o.Body.Object["data"]
	}
	want := map[string]any{"a": map[string]any{"x": "plain"}, "b": map[string]any{"zone": "eu"}, "c": map[string]any{"y": "plain"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ok objects (-want +got):\n%s", d)
	}
	bad := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "bad"}]
	wantErr := &graph.BuildError{Message: `postBuild variable "my-zone" is not a valid name (letters, digits and '_', not starting with a digit): Flux's substitution fails with "'my-zone' var name is invalid, must match '^[_[:alpha:]][_[:alpha:][:digit:]]*$'"`,
		File: "clusters/dev/tiers.yaml", Line: 31} // the substitute key
	if d := cmp.Diff(wantErr, bad.Err); d != "" {
		t.Errorf("bad error (-want +got):\n%s", d)
	}
}

// TestConfiguredClusterAbsentFromTree: the configuration is the head's, so a cluster it
// adds has no folder at the base; that side has no such cluster rather than a build error.
func TestConfiguredClusterAbsentFromTree(t *testing.T) {
	dir := tree(t, map[string]string{"apps/a.yaml": cm("default", "a")})
	cfg := &config.Config{Clusters: []config.Cluster{{Name: "prod", Path: "apps"}, {Name: "new", Path: "deploy/flux"}}}
	var got []string
	for _, c := range render(t, dir, cfg).Clusters {
		got = append(got, c.Name+" "+strings.Join(objects(c), ","))
	}
	want := []string{"prod flux-system/flux-system ConfigMap/default/a apps/a.yaml:2"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("clusters (-want +got):\n%s", d)
	}
}

// TestApplySpecIgnore: the root GitRepository's spec.ignore leaves files out of the
// artifact (source-controller), so Render with ApplySpecIgnore neither builds them nor
// discovers a Kustomization they hold; another GitRepository's spec.ignore does not count.
func TestApplySpecIgnore(t *testing.T) {
	files := merge(bootstrap("dev"), map[string]string{
		"clusters/dev/apps.yaml":  ks("apps", "./apps"),
		"clusters/dev/draft.yaml": ks("draft", "./drafts"),
		"apps/a.yaml":             cm("default", "a"),
		"apps/b.test.yaml":        cm("default", "b"),
		"drafts/d.yaml":           cm("default", "d"),
		"other/repo.yaml":         "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: other\n  namespace: flux-system\nspec:\n  ignore: apps/a.yaml\n",
	})
	sync := "clusters/dev/flux-system/gotk-sync.yaml"
	files[sync] = strings.Replace(files[sync], "spec:\n  url:", "spec:\n  ignore: |\n    *.test.yaml\n    /clusters/dev/draft.yaml\n  url:", 1)
	type tier struct {
		Name    string
		Objects []string
	}
	tiers := func(g *graph.Graph) []tier {
		var out []tier
		for _, ref := range g.Cluster("dev").Order {
			tr := tier{Name: ref.Name}
			for _, o := range g.Cluster("dev").Kustomizations[ref].Objects {
				tr.Objects = append(tr.Objects, o.ID.Name)
			}
			out = append(out, tr)
		}
		return out
	}
	want := map[bool][]tier{
		false: {{"flux-system", []string{"apps", "draft", "flux-system", "flux-system"}}, {"apps", []string{"a", "b"}}, {"draft", []string{"d"}}},
		true:  {{"flux-system", []string{"apps", "flux-system", "flux-system"}}, {"apps", []string{"a"}}},
	}
	for _, apply := range []bool{false, true} {
		g, err := Render(context.Background(), tree(t, files), Options{SourceIgnore: apply})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want[apply], tiers(g)); d != "" {
			t.Errorf("SourceIgnore=%v: tiers (-want +got):\n%s", apply, d)
		}
	}
}

// mustSnapshot reads dir as Render does.
func mustSnapshot(t *testing.T, dir string) *graph.Snapshot {
	t.Helper()
	src, err := fsys.ReadSource(dir, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return src.Snapshot
}
