package discover

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
	"github.com/tiergate/tiergate/internal/render/rendertest"
)

// TestNotBoot: notBoot is true only where rootOf finds the document no bootstrap root
// (a path elsewhere, quoted or plain with a "/"), and false, unsure, for a path that is
// the file's folder, a parent, empty, null, a plain word YAML 1.1 may read as a bool, an
// alias, a merge key or a repeated key.
func TestNotBoot(t *testing.T) {
	const file = "clusters/dev/flux-system/ks.yaml"
	head := "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n"
	ref := "  sourceRef: {kind: GitRepository, name: flux-system}\n  interval: 10m\n  prune: true\n"
	tests := []struct {
		name, spec string
		want       bool
	}{
		{"elsewhere", "spec:\n  path: ./kubernetes/apps\n" + ref, true},
		{"elsewhere, quoted", "spec:\n  path: \"kubernetes\"\n" + ref, true},
		{"a sibling folder", "spec:\n  path: ./clusters/dev/apps\n" + ref, true},
		{"its folder", "spec:\n  path: ./clusters/dev/flux-system\n" + ref, false},
		{"a parent", "spec:\n  path: ./clusters/dev\n" + ref, false},
		{"the root", "spec:\n  path: ./\n" + ref, false},
		{"no path", "spec:\n" + ref, false},
		{"null", "spec:\n  path: null\n" + ref, false},
		{"tagged null", "spec:\n  path: !!null ./x/y\n" + ref, false},
		{"a plain word", "spec:\n  path: yes\n" + ref, false},
		{"an alias", "x: &p ./kubernetes/apps\nspec:\n  path: *p\n" + ref, false},
		{"a merge key", "x: &s {path: ./clusters/dev}\nspec:\n  <<: *s\n  path: ./kubernetes/apps\n" + ref, false},
		{"a repeated key", "spec:\n  path: ./kubernetes/apps\n  path: ./\n" + ref, false},
		{"a repeated spec", "spec:\n  path: ./kubernetes/apps\n" + ref + "spec:\n  path: ./\n" + ref, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := index.Parse([]byte(head + tt.spec))
			if len(docs) != 1 {
				t.Fatalf("%d documents", len(docs))
			}
			got := notBoot(docs[0], file)
			if got != tt.want {
				t.Errorf("notBoot = %v, want %v", got, tt.want)
			}
			if _, isBoot, ok := rootOf(docs[0], file); got && ok && isBoot {
				t.Errorf("notBoot is true for a bootstrap root")
			}
		})
	}
}

// TestSourceFoldersParsesOnlySources: sourceFolders finds each source-controller source's
// folders and parses only files that spell a source kind and the source API group: not a
// HelmRelease whose chartRef names an OCIRepository, nor a ConfigMap mentioning a Bucket.
func TestSourceFoldersParsesOnlySources(t *testing.T) {
	files := map[string]string{
		"clusters/dev/flux-system/gotk-sync.yaml": "apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\n" +
			"---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n",
		"apps/a/oci.yaml":         "apiVersion: \"source.toolkit.fluxcd.io/v1\"\nkind: OCIRepository\nmetadata: {name: podinfo}\n",
		"apps/a/helmrelease.yaml": "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: podinfo\nspec:\n  chartRef: {kind: OCIRepository, name: podinfo}\n",
		"apps/b/cm.yaml":          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  text: a Bucket of source.toolkit.fluxcd.io\n",
		"apps/b/other.yaml":       "apiVersion: other.example.com/v1\nkind: Bucket\nmetadata:\n  name: b\n",
	}
	src, err := fsys.ReadSource(rendertest.Tree(t, files), graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var parsed []string
	ix := index.New(src.Snapshot, func(_ string, data []byte) []index.Doc {
		parsed = append(parsed, string(data[:30]))
		return index.Parse(data)
	})
	got := sourceFolders(ix, ix.YAMLFiles())
	want := map[graph.SourceRef]map[string]bool{
		{Kind: "GitRepository", Namespace: "flux-system", Name: "flux-system"}: {"clusters/dev/flux-system": true},
		{Kind: "OCIRepository", Namespace: "flux-system", Name: "podinfo"}:     {"apps/a": true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("sourceFolders (-want +got):\n%s", d)
	}
	if len(parsed) != 3 { // gotk-sync, oci, and the ConfigMap (it spells both words)
		t.Errorf("parsed %d files, want 3: %q", len(parsed), parsed)
	}
}

// TestOperatorCandidateParsesOnlyNamed: a HelmRelease that is no flux-instance by its text,
// path or folder is no candidate and is not parsed; a named one and a FluxInstance are
// candidates, and a file spelling FluxInstance with no such document is parsed and is none.
func TestOperatorCandidateParsesOnlyNamed(t *testing.T) {
	hr := func(name string) string {
		return "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: " + name + "\nspec:\n  chart: {spec: {chart: " + name + "}}\n"
	}
	files := map[string]string{
		"apps/podinfo/helmrelease.yaml":  hr("podinfo"),
		"flux/one/helmrelease.yaml":      hr("flux-instance"),
		"flux-instance/two/release.yaml": hr("flux"),
		"flux/four/instance.yaml":        "apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n",
		"apps/rules/rule.yaml":           "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: rule\ndata:\n  expr: kind=FluxInstance\n",
	}
	src, err := fsys.ReadSource(rendertest.Tree(t, files), graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	parsed := map[string]bool{}
	ix := index.New(src.Snapshot, func(_ string, data []byte) []index.Doc {
		parsed[string(data)] = true
		return index.Parse(data)
	})
	got := map[string]bool{}
	for _, rel := range ix.YAMLFiles() {
		got[rel] = operatorCandidate(ix, rel)
	}
	want := map[string]bool{"apps/podinfo/helmrelease.yaml": false, "flux/one/helmrelease.yaml": true,
		"flux-instance/two/release.yaml": true, "flux/four/instance.yaml": true, "apps/rules/rule.yaml": false}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("candidates (-want +got):\n%s", d)
	}
	if parsed[files["apps/podinfo/helmrelease.yaml"]] || len(parsed) != 4 {
		t.Errorf("parsed %d files (podinfo's HelmRelease: %v), want 4 without it", len(parsed), parsed[files["apps/podinfo/helmrelease.yaml"]])
	}
}
