package artifact

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/rendertest"
)

// TestCopyOperations: the artifact paths each copy makes, and their repository files, as
// source-watcher's cp-like rules give them (docs/spec/v1beta1/artifactgenerators.md).
func TestCopyOperations(t *testing.T) {
	snap := rendertest.Snapshot(map[string]string{
		"src/configs/a.yaml":          "a: 1\n",
		"src/configs/README.md":       "x\n",
		"src/configs/sub/b.yaml":      "b: 1\n",
		"src/configs/testdata/c.yaml": "c: 1\n",
	})
	sources := map[string]SourceTree{"src": {Snap: snap, Prefix: "src"}}
	cases := []struct {
		name string
		op   CopyOp
		want map[string]string // artifact path → repository file
	}{
		{"file to a file", CopyOp{From: "@src/configs/a.yaml", To: "@artifact/apps/app.yaml"},
			map[string]string{"apps/app.yaml": "src/configs/a.yaml"}},
		{"file into a folder", CopyOp{From: "@src/configs/a.yaml", To: "@artifact/apps/"},
			map[string]string{"apps/a.yaml": "src/configs/a.yaml"}},
		{"glob of files", CopyOp{From: "@src/configs/*.yaml", To: "@artifact/apps/"},
			map[string]string{"apps/configs/a.yaml": "src/configs/a.yaml"}},
		{"folder as a subfolder", CopyOp{From: "@src/configs/", To: "@artifact/apps/", Exclude: []string{"*.md", "**/testdata/**"}},
			map[string]string{"apps/configs/a.yaml": "src/configs/a.yaml", "apps/configs/sub/b.yaml": "src/configs/sub/b.yaml"}},
		{"dir/** strips dir; exclude relative to it", CopyOp{From: "@src/configs/**", To: "@artifact/apps/", Exclude: []string{"sub/**", "README.md"}},
			map[string]string{"apps/a.yaml": "src/configs/a.yaml", "apps/testdata/c.yaml": "src/configs/testdata/c.yaml"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st := &Staged{files: map[string]*stagedFile{}, dirs: map[string]bool{}, max: 100}
			if err := st.Apply(tc.op, sources); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for p, f := range st.files {
				got[p] = f.origin
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("artifact (-want +got):\n%s", d)
			}
		})
	}
	st := &Staged{files: map[string]*stagedFile{}, dirs: map[string]bool{}, max: 100}
	var errs []string
	for _, op := range []CopyOp{
		{From: "src/configs/a.yaml", To: "@artifact/"},
		{From: "@src/configs/a.yaml", To: "apps/"},
		{From: "@other/a.yaml", To: "@artifact/"},
		{From: "@src/configs/*.json", To: "@artifact/"},
		{From: "@src/configs/*.yaml", To: "@artifact/", Exclude: []string{"*"}},
		{From: "@src/missing", To: "@artifact/"},
		{From: "@src/configs/a.yaml", To: "@artifact/../x"},
	} {
		errs = append(errs, st.Apply(op, sources).Error())
	}
	sort.Strings(errs)
	want := []string{
		"all files matching pattern 'configs/*.yaml' in source 'src' were excluded",
		"destination '@artifact/../x' is outside the artifact",
		"invalid copy destination 'apps/': destination must start with '@artifact/'",
		"invalid copy source 'src/configs/a.yaml': source format must be '@alias/pattern'",
		"no files match pattern 'configs/*.json' in source 'src'",
		"source 'missing' does not exist",
		"source alias 'other' not found",
	}
	if d := cmp.Diff(want, errs); d != "" {
		t.Fatalf("errors (-want +got):\n%s", d)
	}
}
