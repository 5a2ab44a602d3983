package pipeline

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// A head .tiergate.yaml that is a folder or a named pipe is a config-error at line 1
// saying what it is, as a symlink or an oversized file is; it was taken for absent
// (hostile5 cfg). The pipe is never opened: the tree records its mode (Lstat), and an
// open would wait for a writer. Negative: a tree with no .tiergate.yaml has no finding.
func TestHeadConfigNotAFile(t *testing.T) {
	const prefix = ".tiergate.yaml cannot be used, so this review ran with the base's .tiergate.yaml (or the defaults when that cannot be used either): "
	for _, tc := range []struct {
		name    string
		make    func(p string) error
		message string
	}{
		{"folder", func(p string) error { return os.Mkdir(p, 0o755) }, ".tiergate.yaml: it is a folder, not a file"},
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o644) }, ".tiergate.yaml: it is a named pipe, not a regular file"},
		{"absent", func(string) error { return nil }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS("../../testdata/scenarios/demo/head")); err != nil {
				t.Fatal(err)
			}
			_ = os.RemoveAll(filepath.Join(dir, ".tiergate.yaml"))
			if err := tc.make(filepath.Join(dir, ".tiergate.yaml")); err != nil {
				t.Fatal(err)
			}
			head, err := ReadDir(dir, graph.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			got := reviewedConfigErrors(t, memTree(t, "base", nil), head)
			var want []rules.Finding
			if tc.message != "" {
				want = []rules.Finding{{Rule: "config-error", Severity: rules.Error, Status: rules.StatusNew, File: ".tiergate.yaml", Line: 1,
					Message: prefix + tc.message, Suggestion: "Fix .tiergate.yaml at the line named; see docs/config.md for its keys."}}
			}
			if d := cmp.Diff(want, got, cmp.AllowUnexported(rules.Finding{})); d != "" {
				t.Errorf("config-error findings (-want +got):\n%s", d)
			}
		})
	}
}
