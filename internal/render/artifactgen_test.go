package render

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/config"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// The scenario's base: an ArtifactGenerator in clusters/staging copies infrastructure/ and
// apps/ into three ExternalArtifacts, one with an exclude and a Merge.
const generatorRepo = "../../testdata/scenarios/artifact-generator/base"

func TestExternalArtifactBuildsFromGenerator(t *testing.T) {
	c := render(t, generatorRepo, nil).Cluster("staging")
	want := []string{
		"flux-system/apps ConfigMap/podinfo/podinfo-values apps/base/podinfo/values.yaml:2",
		"flux-system/apps Namespace/podinfo apps/base/podinfo/namespace.yaml:2",
		"flux-system/flux-system ArtifactGenerator.source.extensions.fluxcd.io/flux-system/platform clusters/staging/artifacts.yaml:2",
		"flux-system/flux-system GitRepository.source.toolkit.fluxcd.io/flux-system/flux-system clusters/staging/flux-system/gotk-sync.yaml:2",
		"flux-system/flux-system Kustomization.kustomize.toolkit.fluxcd.io/flux-system/apps clusters/staging/apps.yaml:2",
		"flux-system/flux-system Kustomization.kustomize.toolkit.fluxcd.io/flux-system/flux-system clusters/staging/flux-system/gotk-sync.yaml:13",
		"flux-system/flux-system Kustomization.kustomize.toolkit.fluxcd.io/flux-system/infra-configs clusters/staging/infrastructure.yaml:16",
		"flux-system/flux-system Kustomization.kustomize.toolkit.fluxcd.io/flux-system/infra-controllers clusters/staging/infrastructure.yaml:2",
		"flux-system/infra-configs ConfigMap/flux-system/cluster-settings infrastructure/configs/settings.yaml:2",
		"flux-system/infra-controllers Namespace/ingress-nginx infrastructure/controllers/ingress-nginx.yaml:2",
		"flux-system/infra-controllers ServiceAccount/ingress-nginx/ingress-nginx infrastructure/controllers/ingress-nginx.yaml:7",
	}
	if d := cmp.Diff(want, objects(c)); d != "" {
		t.Fatalf("objects (-want +got):\n%s", d)
	}
	// staging/values.yaml is merged into the base's (source-watcher mergeMap); the
	// excluded smoke-test.yaml is not in the artifact.
	for _, o := range c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].Objects {
		if o.ID.Kind == "ConfigMap" {
			if d := cmp.Diff(map[string]any{"replicas": "2", "color": "blue"}, o.Body.Object["data"]); d != "" {
				t.Fatalf("merged data (-want +got):\n%s", d)
			}
		}
	}
	if p := Partials(c); len(p) != 0 {
		t.Fatalf("partials: %+v", p)
	}
}

const generatorHead = `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata:
  name: gen
  namespace: flux-system
spec:
  sources:
    - alias: repo
      kind: GitRepository
      name: flux-system
`

func generatorTree(t *testing.T, gen string) string {
	app := strings.Replace(ks("apps", "./"), "kind: GitRepository\n    name: flux-system", "kind: ExternalArtifact\n    name: web", 1)
	return tree(t, merge(bootstrap("dev"), map[string]string{
		"clusters/dev/gen.yaml":  gen,
		"clusters/dev/apps.yaml": app,
		"apps/web/cm.yaml":       cm("default", "web"),
		"apps/web/chart.tgz":     "not really a tarball",
	}))
}

func TestExternalArtifactNotReviewed(t *testing.T) {
	copyWeb := "  artifacts:\n    - name: web\n      copy:\n        - from: \"@repo/apps/web/**\"\n          to: \"@artifact/\"\n"
	cases := []struct {
		name, gen string
		cfg       *config.Config
		want      string
	}{
		{"no generator", strings.Replace(generatorHead+copyWeb, "name: web", "name: other", 1), nil,
			"sourceRef ExternalArtifact/flux-system/web: no ArtifactGenerator in the cluster's graph produces it, and it has no folder in .tiergate.yaml sources; " +
				"no such source is rendered in the cluster either, so Flux reports it not found unless it is created out of band"},
		{"unmapped source", strings.Replace(generatorHead, "kind: GitRepository", "kind: OCIRepository", 1) + copyWeb, nil,
			"sourceRef ExternalArtifact/flux-system/web: ArtifactGenerator flux-system/gen reads source OCIRepository/flux-system/flux-system (@repo), which is not the cluster's source and has no folder in .tiergate.yaml sources"},
		{"pathPattern", strings.Replace(generatorHead+copyWeb, "name: web", "name: \"{app}\"", 1) + "  pathPattern: \"@repo/apps/{app}\"\n", nil,
			"sourceRef ExternalArtifact/flux-system/web: ArtifactGenerator flux-system/gen uses pathPattern, which tiergate does not reproduce"},
		{"extract", generatorHead + "  artifacts:\n    - name: web\n      copy:\n        - from: \"@repo/apps/web/*.tgz\"\n          to: \"@artifact/\"\n          strategy: Extract\n", nil,
			"sourceRef ExternalArtifact/flux-system/web: ArtifactGenerator flux-system/gen copies '@repo/apps/web/*.tgz' with the Extract strategy, which unpacks a tarball tiergate does not review"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := render(t, generatorTree(t, tc.gen), tc.cfg).Cluster("dev")
			want := []graph.Partial{{Kustomization: "flux-system/apps", Reason: tc.want}}
			if d := cmp.Diff(want, Partials(c)); d != "" {
				t.Fatalf("partials (-want +got):\n%s", d)
			}
		})
	}
}

func TestExternalArtifactMappedSourceAndCopyError(t *testing.T) {
	gen := strings.Replace(generatorHead, "kind: GitRepository", "kind: OCIRepository", 1) +
		"  artifacts:\n    - name: web\n      copy:\n        - from: \"@repo/web/cm.yaml\"\n          to: \"@artifact/app/\"\n"
	cfg := &config.Config{Sources: map[string]string{"OCIRepository/flux-system/flux-system": "apps"}}
	c := render(t, generatorTree(t, gen), cfg).Cluster("dev")
	if d := cmp.Diff([]string{"flux-system/apps ConfigMap/default/web apps/web/cm.yaml:2"}, objects(c)[:1]); d != "" {
		t.Fatalf("objects (-want +got):\n%s", d)
	}
	gen = strings.Replace(gen, "@repo/web/cm.yaml", "@repo/web/*.json", 1)
	c = render(t, generatorTree(t, gen), cfg).Cluster("dev")
	want := &graph.BuildError{File: "clusters/dev/gen.yaml", Line: 14, Message: "ArtifactGenerator flux-system/gen cannot build artifact web: " +
		"failed to apply copy operation from '@repo/web/*.json' to '@artifact/app/': no files match pattern 'web/*.json' in source 'repo'"}
	if d := cmp.Diff(want, c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].Err); d != "" {
		t.Fatalf("error (-want +got):\n%s", d)
	}
}

func artifactFleet() map[string]string {
	return merge(bootstrap("dev"), map[string]string{
		"clusters/dev/gen.yaml": generatorHead + "  artifacts:\n    - name: web\n      copy:\n" +
			"        - from: \"@repo/apps/**\"\n          to: \"@artifact/\"\n          exclude: [\"skip-*.yaml\"]\n",
		"clusters/dev/apps.yaml": strings.Replace(ks("apps", "./"), "kind: GitRepository\n    name: flux-system", "kind: ExternalArtifact\n    name: web", 1),
		"apps/cm.yaml":           cm("default", "web"),
		"apps/skip-me.yaml":      cm("default", "skipped"),
	})
}

// TestCacheArtifactBuilds: a build in a generated artifact is reused exactly when the
// artifact's files are unchanged, wherever in the repository they were copied from, and
// its objects then point at the files of the tree being rendered.
func TestCacheArtifactBuilds(t *testing.T) {
	gen := artifactFleet()["clusters/dev/gen.yaml"]
	cases := []struct {
		name         string
		edit         map[string]string // path → content; "" removes
		hits, misses int64             // flux-system, apps
	}{
		{"no change", nil, 2, 0},
		{"file the copy excludes", map[string]string{"apps/skip-me.yaml": cm("default", "skipped", "k: edited")}, 2, 0},
		{"file the copy takes", map[string]string{"apps/cm.yaml": cm("default", "web", "k: edited")}, 1, 1},
		{"same files copied from another folder", map[string]string{"clusters/dev/gen.yaml": strings.Replace(gen, "@repo/apps/**", "@repo/web/**", 1),
			"web/cm.yaml": cm("default", "web"), "apps/cm.yaml": "", "apps/skip-me.yaml": ""}, 1, 1},
		{"exclude drops a manifest", map[string]string{"clusters/dev/gen.yaml": strings.Replace(gen, `["skip-*.yaml"]`, `["*.yaml"]`, 1),
			"apps/other.yml": cm("default", "other")}, 0, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cache := NewCache(0)
			files := artifactFleet()
			if _, err := Render(context.Background(), tree(t, files), Options{Cache: cache}); err != nil {
				t.Fatal(err)
			}
			if got := cache.Stats(); got.Misses != 2 || got.Hits != 0 {
				t.Fatalf("first render: %+v, want 2 misses", got)
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
			if st := cache.Stats(); st.Hits != tc.hits || st.Misses-2 != tc.misses {
				t.Errorf("hits %d misses %d, want %d and %d", st.Hits, st.Misses-2, tc.hits, tc.misses)
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

// TestExternalArtifactErrorNamesRepositoryFiles: a build error in an artifact names the
// repository's files, a missing one through its folder (source-watcher copies "dir/" as
// a subfolder: app/ lands at app/app/).
func TestExternalArtifactErrorNamesRepositoryFiles(t *testing.T) {
	gen := generatorHead + "  artifacts:\n    - name: web\n      copy:\n        - from: \"@repo/apps/web/\"\n          to: \"@artifact/app/\"\n"
	files := merge(bootstrap("dev"), map[string]string{
		"clusters/dev/gen.yaml":       gen,
		"clusters/dev/apps.yaml":      strings.Replace(ks("apps", "./app/web"), "kind: GitRepository\n    name: flux-system", "kind: ExternalArtifact\n    name: web", 1),
		"apps/web/kustomization.yaml": "resources: [cm.yaml, gone.yaml]\n",
		"apps/web/cm.yaml":            cm("default", "web"),
	})
	c := render(t, tree(t, files), nil).Cluster("dev")
	err := c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].Err
	want := &graph.BuildError{File: "apps/web/kustomization.yaml", Line: 1, Message: "apps/web/kustomization.yaml:1 lists 'gone.yaml', which does not exist",
		Details: "accumulating resources: accumulation err='accumulating resources from 'gone.yaml': " +
			"open apps/web/gone.yaml: no such file or directory': must build at directory: not a valid directory: " +
			"evalsymlink failure on 'apps/web/gone.yaml' : lstat apps/web/gone.yaml: no such file or directory"}
	if d := cmp.Diff(want, err); d != "" {
		t.Fatalf("error (-want +got):\n%s", d)
	}
}

// TestExternalArtifactCopyLimit: copy operations that write more files than MaxFiles fail
// the artifact's Kustomization at the generator, whatever the repository holds.
func TestExternalArtifactCopyLimit(t *testing.T) {
	gen := generatorHead + "  artifacts:\n    - name: web\n      copy:\n"
	for i := 0; i < 6; i++ {
		gen += fmt.Sprintf("        - from: \"@repo/apps/**\"\n          to: \"@artifact/copy%d/\"\n", i)
	}
	files := merge(bootstrap("dev"), map[string]string{
		"clusters/dev/gen.yaml":  gen,
		"clusters/dev/apps.yaml": strings.Replace(ks("apps", "./"), "kind: GitRepository\n    name: flux-system", "kind: ExternalArtifact\n    name: web", 1),
		"apps/a.yaml":            cm("default", "a"),
		"apps/b.yaml":            cm("default", "b"),
	})
	g, err := Render(context.Background(), tree(t, files), Options{Limits: graph.Limits{MaxFiles: 10}})
	if err != nil {
		t.Fatal(err)
	}
	want := &graph.BuildError{File: "clusters/dev/gen.yaml", Line: 14, Message: "ArtifactGenerator flux-system/gen cannot build artifact web: " +
		"failed to apply copy operation from '@repo/apps/**' to '@artifact/copy5/': failed to copy file 'apps/a.yaml' to 'copy5/a.yaml': " +
		"render limit exceeded: the copy operations write more than 10 files (--max-files)"}
	if d := cmp.Diff(want, g.Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].Err); d != "" {
		t.Fatalf("error (-want +got):\n%s", d)
	}
}
