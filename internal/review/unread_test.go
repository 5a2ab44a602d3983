package review

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/rendertest"
)

func snapshotOf(files map[string]string) *graph.Snapshot {
	s := graph.NewSnapshot("/tree")
	for f, data := range files {
		s.Data[f] = []byte(data)
	}
	return s
}

// clusterOn is a cluster read from snap: a root at clusters/prod applying Kustomization apps
// (path ./apps) with one object from base/ and an in-repo chart at charts/app, plus one
// HelmRelease whose chart is remote.
func clusterOn(snap *graph.Snapshot) *graph.Cluster {
	root := graph.Ref{Namespace: "flux-system", Name: "flux-system"}
	apps := graph.Ref{Namespace: "flux-system", Name: "apps"}
	return &graph.Cluster{Name: "prod", Source: snap, RootFile: "clusters/prod/flux-system/gotk-sync.yaml", RootDir: "clusters/prod", Root: root,
		Kustomizations: map[graph.Ref]*graph.Kustomization{
			root: {Ref: root, Spec: graph.Spec{Path: "./clusters/prod"}, File: "clusters/prod/flux-system/gotk-sync.yaml"},
			apps: {Ref: apps, Spec: graph.Spec{Path: "./apps"}, File: "clusters/prod/apps.yaml",
				Objects:            []*graph.Object{{File: "base/cm.yaml", Line: 1}},
				Releases:           []graph.Release{{Chart: "charts/app"}},
				HelmReleaseSkipped: []graph.ReleaseSkip{{Chart: "https://charts.example.com nginx:1.0.0", File: "apps/nginx.yaml"}}},
		}}
}

// TestUnreadFiles: of the files a change adds, removes or edits, those outside every
// Kustomization's path, rendered object's folder and in-repo chart are listed; the ones a
// cluster reads, and unchanged ones, are not.
func TestUnreadFiles(t *testing.T) {
	same := map[string]string{
		"clusters/prod/flux-system/gotk-sync.yaml": "root", "clusters/prod/apps.yaml": "apps", "archive/same.yaml": "same",
	}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range same {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	base := snapshotOf(with(map[string]string{
		"apps/x.yaml": "1", "base/other.yaml": "1", "charts/app/values.yaml": "1", "archive/a.yaml": "1", "archive/gone.yaml": "1",
		".sourceignore": "1", "clusters/prod/apps.yaml": "old",
	}))
	head := snapshotOf(with(map[string]string{
		"apps/x.yaml": "2", "base/other.yaml": "2", "charts/app/values.yaml": "2", "archive/a.yaml": "2", "archive/new/b.yaml": "2", "README.md": "2", "scripts/x.sh": "2",
		".sourceignore": "2", ".tiergate.yaml": "2", "basement/c.yaml": "2",
	}))
	bg := &graph.Graph{Clusters: []*graph.Cluster{clusterOn(base)}}
	hg := &graph.Graph{Clusters: []*graph.Cluster{clusterOn(head)}}
	want := []string{"archive/a.yaml", "archive/gone.yaml", "archive/new/b.yaml", "basement/c.yaml"}
	if d := cmp.Diff(want, unreadFiles(bg, hg)); d != "" {
		t.Errorf("unread (-want +got):\n%s", d)
	}

	// Negative: a kustomization.yaml of the path names ../basement (a patch kustomize reads
	// there); a folder whose name only starts so is still unread.
	head.Data["apps/kustomization.yaml"] = []byte("patches:\n  - path: ../basement/c.yaml\nresources:\n  - ../archived\n")
	want = []string{"archive/a.yaml", "archive/gone.yaml", "archive/new/b.yaml"}
	if d := cmp.Diff(want, unreadFiles(bg, hg)); d != "" {
		t.Errorf("unread with a patch in basement/ (-want +got):\n%s", d)
	}
	delete(head.Data, "apps/kustomization.yaml")

	// Negative: a cluster whose tree is not known, or two clusters on two trees (mapped
	// sources), say nothing rather than guess.
	unknown := clusterOn(nil)
	if got := unreadFiles(bg, &graph.Graph{Clusters: []*graph.Cluster{unknown}}); got != nil {
		t.Errorf("unknown tree: unread = %q, want none", got)
	}
	other := clusterOn(snapshotOf(map[string]string{"archive/a.yaml": "3"}))
	if got := unreadFiles(bg, &graph.Graph{Clusters: []*graph.Cluster{clusterOn(head), other}}); got != nil {
		t.Errorf("two trees: unread = %q, want none", got)
	}
	// Negative: a Kustomization not built (an unmapped source, a failing build) may read
	// anything: nothing is claimed.
	for name, set := range map[string]func(*graph.Kustomization){
		"skipped": func(ks *graph.Kustomization) {
			ks.Skipped = "source OCIRepository/flux-system/flux-system is not mapped"
		},
		"failed": func(ks *graph.Kustomization) { ks.Err = &graph.BuildError{Message: "accumulating resources"} },
	} {
		c := clusterOn(head)
		set(c.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}])
		if got := unreadFiles(bg, &graph.Graph{Clusters: []*graph.Cluster{c}}); got != nil {
			t.Errorf("%s: unread = %q, want none", name, got)
		}
	}
	// Negative: a Kustomization whose path is the repository root reads everything.
	all := clusterOn(head)
	all.Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}].Spec.Path = "./"
	if got := unreadFiles(bg, &graph.Graph{Clusters: []*graph.Cluster{all}}); got != nil {
		t.Errorf("path ./: unread = %q, want none", got)
	}
}

// TestUnreadFromBuildReads: with every build's recorded reads (Kustomization.Reads) the
// unread list is exact. A patch in patches/, a folder no Kustomization's path covers, read
// only through a component's kustomization.yaml (`../../patches/patch.yaml`), is read and
// not listed (before, the folder approximation listed it: no object comes from the
// component's folder, so its kustomization.yaml was not searched); an archive/ file is
// listed, and so is apps/unused.yaml, in the path's folder but named by no
// kustomization.yaml, so kustomize never reads it.
func TestUnreadFromBuildReads(t *testing.T) {
	side := func(v string) map[string]string {
		return map[string]string{
			"clusters/dev/flux-system/gotk-sync.yaml": rendertest.DevRoot,
			"clusters/dev/apps.yaml":                  "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec: {interval: 10m, path: ./apps, prune: true, sourceRef: {kind: GitRepository, name: flux-system}}\n",
			"apps/kustomization.yaml":                 "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\ncomponents: [../components/pin]\n",
			"apps/cm.yaml":                            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\ndata: {v: a}\n",
			"apps/unused.yaml":                        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: unused, namespace: default}\ndata: {v: " + v + "}\n",
			"components/pin/kustomization.yaml":       "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n  - path: ../../patches/patch.yaml\n",
			"patches/patch.yaml":                      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm, namespace: default}\ndata: {v: " + v + "}\n",
			"archive/old.yaml":                        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: old, namespace: default}\ndata: {v: " + v + "}\n",
		}
	}
	base, head := renderFiles(t, side("b")), renderFiles(t, side("h"))
	apps := head.Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	for f, want := range map[string]bool{"patches/patch.yaml": true, "components/pin/kustomization.yaml": true, "apps/cm.yaml": true, "apps/unused.yaml": false, "archive/old.yaml": false} {
		if got := apps.ReadsPath(f); got != want {
			t.Errorf("apps ReadsPath(%s) = %v, want %v (reads %v)", f, got, want, apps.Reads)
		}
	}
	want := []string{"apps/unused.yaml", "archive/old.yaml"}
	if d := cmp.Diff(want, unreadFiles(base, head)); d != "" {
		t.Errorf("unread (-want +got):\n%s", d)
	}
	// Negative: one Kustomization whose reads are not recorded (a graph from an older
	// cache) falls back to the folders: apps/unused.yaml is then in a path's folder.
	apps.Reads = nil
	want = []string{"archive/old.yaml", "patches/patch.yaml"}
	if d := cmp.Diff(want, unreadFiles(base, head)); d != "" {
		t.Errorf("unread without recorded reads (-want +got):\n%s", d)
	}
}

// TestUnreadThroughArtifactGenerator: a Kustomization built from an ExternalArtifact that
// an ArtifactGenerator stages records what it read as the repository files the artifact's
// were copied from (artifact.View). An edit only in a staged file the build reads
// (apps/web/cm.yaml, and apps/overlay/cm.yaml merged into it) is read and not listed; a
// staged file no kustomization.yaml names (apps/web/unused.yaml), one the copy excludes
// (apps/overlay/skip-test.yaml) and one outside every copy (archive/old.yaml) are listed.
func TestUnreadThroughArtifactGenerator(t *testing.T) {
	cmOf := func(name, v string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + ", namespace: default}\ndata: {v: " + v + "}\n"
	}
	side := func(v string) map[string]string {
		return map[string]string{
			"clusters/dev/flux-system/gotk-sync.yaml": rendertest.DevRoot,
			"clusters/dev/gen.yaml": "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata: {name: gen, namespace: flux-system}\n" +
				"spec:\n  sources: [{alias: repo, kind: GitRepository, name: flux-system}]\n  artifacts:\n    - name: web\n      copy:\n" +
				"        - {from: \"@repo/apps/web/**\", to: \"@artifact/\"}\n" +
				"        - {from: \"@repo/apps/overlay/**\", to: \"@artifact/\", exclude: [\"*-test.yaml\"], strategy: Merge}\n",
			"clusters/dev/apps.yaml":      "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: flux-system}\nspec: {interval: 10m, path: ./, prune: true, sourceRef: {kind: ExternalArtifact, name: web}}\n",
			"apps/web/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\n",
			"apps/web/cm.yaml":            cmOf("cm", v),
			"apps/web/unused.yaml":        cmOf("unused", v),
			"apps/overlay/cm.yaml":        "data: {w: " + v + "}\n",
			"apps/overlay/skip-test.yaml": cmOf("skip", v),
			"archive/old.yaml":            cmOf("old", v),
		}
	}
	base, head := renderFiles(t, side("b")), renderFiles(t, side("h"))
	apps := head.Cluster("dev").Kustomizations[graph.Ref{Namespace: "flux-system", Name: "apps"}]
	if len(apps.Objects) != 1 || apps.Err != nil || apps.Skipped != "" {
		t.Fatalf("apps: objects %d, err %v, skipped %q", len(apps.Objects), apps.Err, apps.Skipped)
	}
	for f, want := range map[string]bool{
		"apps/web/kustomization.yaml": true, "apps/web/cm.yaml": true, "apps/overlay/cm.yaml": true,
		"apps/web/unused.yaml": false, "apps/overlay/skip-test.yaml": false, "archive/old.yaml": false,
		"cm.yaml": false, "kustomization.yaml": false, // the artifact's own paths are no repository file
	} {
		if got := apps.ReadsPath(f); got != want {
			t.Errorf("apps ReadsPath(%s) = %v, want %v (reads %v)", f, got, want, apps.Reads)
		}
	}
	want := []string{"apps/overlay/skip-test.yaml", "apps/web/unused.yaml", "archive/old.yaml"}
	if d := cmp.Diff(want, unreadFiles(base, head)); d != "" {
		t.Errorf("unread (-want +got):\n%s", d)
	}
}
