package render

import (
	"errors"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/helm"
)

// mapStore is a Store in memory.
type mapStore map[string][]byte

func (m mapStore) Get(key string) ([]byte, bool) { b, ok := m[key]; return b, ok }
func (m mapStore) Put(key string, data []byte)   { m[key] = data }

// TestReleaseRoundTrip: a chart render read back from the store equals the one saved, in
// every field of helm.Result (a field the stored form forgets fails here: the stored
// render once dropped UnmatchedPatches, so a warm review lost postrender-patch-unmatched).
func TestReleaseRoundTrip(t *testing.T) {
	res := &helm.Result{
		Docs: []helm.Doc{
			{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a"}, "data": map[string]any{"n": int64(1)}},
				Template: "app/templates/cm.yaml", Hook: "pre-install", CRD: false},
			{Object: map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": "w.example.com"}},
				Template: "app/crds/w.yaml", CRD: true},
		},
		Approximate:      []string{"lookup returns nothing without a cluster"},
		UnmatchedPatches: []helm.UnmatchedPatch{{Renderer: 1, Patch: 2, Target: "kind=Deployment,name=web"}},
		SkippedCRDs:      []string{"example.com/Widget"},
	}
	v := reflect.ValueOf(*res)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("fixture leaves helm.Result.%s zero: set it so the round trip covers it", v.Type().Field(i).Name)
		}
	}
	c := NewCache(1 << 20)
	c.Persist(mapStore{})
	c.saveRelease("k", res, nil)
	got, err, size, ok := c.loadRelease("k")
	if !ok || err != nil {
		t.Fatal("saved release not found")
	}
	// The memory estimate is taken from the stored text: the same as of the render.
	if want := releaseBytes("k", res); size != want {
		t.Errorf("loaded release's size %d, want releaseBytes's %d", size, want)
	}
	if diff := cmp.Diff(res, got); diff != "" {
		t.Errorf("round trip (-saved +loaded):\n%s", diff)
	}
	// A chart's own failure is stored as Helm's message and read back as the same error.
	msg := "execution error at (app/templates/cm.yaml:3:4): values.name is required"
	c.saveRelease("bad", nil, errors.New(msg))
	if got, err, size, ok := c.loadRelease("bad"); !ok || got != nil || err == nil || err.Error() != msg || size != int64(len("bad")) {
		t.Errorf("stored failure = %v, %v, %d, %v; want nil, %q, 3, true", got, err, size, ok, msg)
	}
}

// TestDigestIsGitBlobHash: a file read from a folder or a work tree has the digest its
// commit gives it (the git blob hash), so a chart read from git at base and from disk at
// head is the same chart (keptChart once saw every in-repo chart of --worktree as changed).
func TestDigestIsGitBlobHash(t *testing.T) {
	data := []byte("apiVersion: v2\nname: web\nversion: 1.2.3\n")
	read := func() ([]byte, error) { return data, nil }
	fromGit, fromDisk := fsys.NewSourceBuilder(graph.Limits{}), fsys.NewSourceBuilder(graph.Limits{})
	if err := fromGit.AddFile("charts/web/Chart.yaml", int64(len(data)), plumbing.ComputeHash(plumbing.BlobObject, data).String(), read); err != nil {
		t.Fatal(err)
	}
	if err := fromDisk.AddFile("charts/web/Chart.yaml", int64(len(data)), "", read); err != nil {
		t.Fatal(err)
	}
	g, d := fromGit.Source("git").Snapshot.Digest("charts/web/Chart.yaml"), fromDisk.Source("dir").Snapshot.Digest("charts/web/Chart.yaml")
	const want = "be2a4202d4d648315fc291e82186eddb4f373445" // git hash-object of the file
	if g != want || d != want {
		t.Errorf("digest from git %q, from disk %q, want %q", g, d, want)
	}
}
