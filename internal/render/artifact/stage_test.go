package artifact

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
	"github.com/tiergate/tiergate/internal/render/rendertest"
)

// generatorOf is the generator of artifact "out" that the ArtifactGenerator manifest y
// (in clusters/gen.yaml, line 1) makes.
func generatorOf(t *testing.T, y string) *Generator {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := sigsyaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	gens := Generators{}
	gens.Add(&graph.Object{ID: graph.IDOf(u), File: "clusters/gen.yaml", Line: 1, Body: u})
	gen := gens[graph.SourceRef{Kind: ExternalKind, Namespace: "flux-system", Name: "out"}]
	if gen == nil {
		t.Fatalf("no generator of out in %s", y)
	}
	return gen
}

const stageGen = `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata: {name: gen, namespace: flux-system}
spec:
  sources:
    - {alias: repo, kind: GitRepository, name: flux-system}
  artifacts:
    - name: out
      copy:
        - {from: "@repo/apps/**", to: "@artifact/"}
`

// TestStage: the artifact's files and where each came from; source-watcher's default
// exclusions (a .git folder, images) are left out of the artifact.
func TestStage(t *testing.T) {
	snap := rendertest.Snapshot(map[string]string{"src/apps/a.yaml": "a: 1\n", "src/apps/logo.png": "p", "src/other.yaml": "o: 1\n"})
	ref := graph.SourceRef{Kind: ExternalKind, Namespace: "flux-system", Name: "out"}
	var asked []graph.SourceRef
	dirOf := func(s graph.SourceRef) (string, bool) { asked = append(asked, s); return "src", true }
	view, skip, err := Stage(generatorOf(t, stageGen), ref, snap, dirOf, 100, index.New(snap, nil))
	if skip != "" || err != nil {
		t.Fatalf("skip %q, err %v", skip, err)
	}
	if d := cmp.Diff([]graph.SourceRef{{Kind: "GitRepository", Namespace: "flux-system", Name: "flux-system"}}, asked); d != "" {
		t.Errorf("sources asked (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"a.yaml": "src/apps/a.yaml", "logo.png": "src/apps/logo.png"}, view.Origin); d != "" {
		t.Errorf("origin (-want +got):\n%s", d)
	}
	if st := view.Snap.State("a.yaml"); st != "file" {
		t.Errorf("a.yaml is %s in the artifact, want a file", st)
	}
	if st := view.Snap.State("logo.png"); st != "absent" {
		t.Errorf("logo.png is %s in the artifact, want it left out by the default exclusions", st)
	}
	if view.Snap.Root != "/tiergate-external-artifact/flux-system/out" {
		t.Errorf("artifact root %q", view.Snap.Root)
	}
}

// TestStageNotReproduced: what Stage does not reproduce is a skip naming why; a failing
// copy operation is an error at the generator line naming its source.
func TestStageNotReproduced(t *testing.T) {
	ref := graph.SourceRef{Kind: ExternalKind, Namespace: "flux-system", Name: "out"}
	snap := rendertest.Snapshot(map[string]string{"clusters/gen.yaml": stageGen, "src/apps/a.yaml": "a: 1\n"})
	ix := index.New(snap, nil)
	repo := func(graph.SourceRef) (string, bool) { return "src", true }
	for _, tc := range []struct {
		name, gen string
		dirOf     func(graph.SourceRef) (string, bool)
		skip      string
		err       *graph.BuildError
	}{
		{"pathPattern", stageGen + "  pathPattern: \"{{ .name }}\"\n", repo,
			"sourceRef ExternalArtifact/flux-system/out: ArtifactGenerator flux-system/gen uses pathPattern, which tiergate does not reproduce", nil},
		{"a source with no folder", stageGen, func(graph.SourceRef) (string, bool) { return "", false },
			"sourceRef ExternalArtifact/flux-system/out: ArtifactGenerator flux-system/gen reads source GitRepository/flux-system/flux-system (@repo), which is not the cluster's source and has no folder in .tiergate.yaml sources", nil},
		{"Extract", stageGen[:len(stageGen)-len("\n")] + "\n        - {from: \"@repo/apps/a.tgz\", to: \"@artifact/\", strategy: Extract}\n", repo,
			"sourceRef ExternalArtifact/flux-system/out: ArtifactGenerator flux-system/gen copies '@repo/apps/a.tgz' with the Extract strategy, which unpacks a tarball tiergate does not review", nil},
		{"a copy that fails", stageGen[:len(stageGen)-len("        - {from: \"@repo/apps/**\", to: \"@artifact/\"}\n")] + "        - {from: \"@repo/missing\", to: \"@artifact/\"}\n", repo, "",
			&graph.BuildError{File: "clusters/gen.yaml", Line: 1, Message: "ArtifactGenerator flux-system/gen cannot build artifact out: failed to apply copy operation from '@repo/missing' to '@artifact/': source 'missing' does not exist"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			view, skip, err := Stage(generatorOf(t, tc.gen), ref, snap, tc.dirOf, 100, ix)
			if skip != tc.skip {
				t.Errorf("skip\n got %q\nwant %q", skip, tc.skip)
			}
			if d := cmp.Diff(tc.err, err); d != "" {
				t.Errorf("err (-want +got):\n%s", d)
			}
			if view.Snap != nil {
				t.Errorf("an artifact not reproduced has a snapshot")
			}
		})
	}
}

// TestViewReads: a build's reads in the artifact are the repository files its files came
// from: a file read, a merged file's every source, every file below a folder read whole;
// an artifact path no file holds (a folder, a file checked for and absent) is no
// repository file.
func TestViewReads(t *testing.T) {
	v := View{
		Origin: map[string]string{"kustomization.yaml": "apps/kustomization.yaml", "cm.yaml": "apps/cm.yaml",
			"sub/a.yaml": "apps/sub/a.yaml", "sub/b.yaml": "other/b.yaml", "subway.yaml": "apps/subway.yaml"},
		Merged: map[string][]string{"cm.yaml": {"overlay/cm.yaml", "overlay2/cm.yaml"}},
	}
	got := v.Reads(map[string]bool{"kustomization.yaml": true, "cm.yaml": true, "Kustomization": true, ".": true, "sub/": true})
	want := map[string]bool{"apps/kustomization.yaml": true, "apps/cm.yaml": true, "overlay/cm.yaml": true, "overlay2/cm.yaml": true,
		"apps/sub/a.yaml": true, "other/b.yaml": true}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("reads (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]bool{"apps/kustomization.yaml": true, "apps/cm.yaml": true, "overlay/cm.yaml": true, "overlay2/cm.yaml": true,
		"apps/sub/a.yaml": true, "other/b.yaml": true, "apps/subway.yaml": true}, v.Reads(map[string]bool{"./": true})); d != "" {
		t.Errorf("the whole artifact read (-want +got):\n%s", d)
	}
	if got := v.Reads(nil); got != nil {
		t.Errorf("unknown reads map to %v, want nil", got)
	}
	if got := v.Reads(map[string]bool{"absent.yaml": true}); got == nil || len(got) != 0 {
		t.Errorf("reads of absent paths map to %#v, want an empty set", got)
	}
}
