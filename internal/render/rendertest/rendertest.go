// Package rendertest holds the test hooks the render packages share.
package rendertest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// repoRoot is the repository's root directory, found from this file's own path so that
// every package's tests read the same folders whatever their depth.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// AddYAMLSeeds adds every YAML file under the scenario folders (the repository's, and the
// shared ones beside it when present) as a seed of f; each value of extra comes after the
// file's bytes.
func AddYAMLSeeds(f *testing.F, extra ...any) {
	root := repoRoot()
	for _, dir := range []string{filepath.Join(root, "testdata", "scenarios"), filepath.Join(root, "..", "shared", "scenarios")} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || (filepath.Ext(p) != ".yaml" && filepath.Ext(p) != ".yml") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err == nil {
				f.Add(append([]any{data}, extra...)...)
			}
			return nil
		})
	}
}

// Tree writes files (slash path → content) into a new temporary directory and returns it.
func Tree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Snapshot is a snapshot of files (slash path → content) held in memory, rooted at /repo.
func Snapshot(files map[string]string) *graph.Snapshot {
	s := graph.NewSnapshot("/repo")
	for p, content := range files {
		s.AddPath(p, 0)
		s.Data[p] = []byte(content)
	}
	return s.Finish()
}
