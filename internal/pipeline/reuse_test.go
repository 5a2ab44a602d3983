package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render"
)

// TestReuseEqualsRebuild reviews every scenario three ways — a full rebuild with
// fluxcd/pkg/kustomize.Build, the default (the head reuses the base's builds), and with a
// cache warmed by the reverse review — and requires the same report from each.
func TestReuseEqualsRebuild(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/scenarios/*")
	shared, _ := filepath.Glob("../../../shared/scenarios/*")
	for _, dir := range append(dirs, shared...) {
		if _, err := os.Stat(filepath.Join(dir, "head")); err != nil {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			base, head := filepath.Join(dir, "base"), filepath.Join(dir, "head")
			want := reviewJSON(t, base, head, Options{NoReuse: true})
			if got := reviewJSON(t, base, head, Options{}); got != want {
				t.Errorf("reuse within the review changes the report:\n%s", cmp.Diff(want, got))
			}
			warm := render.NewCache(0)
			reviewJSON(t, head, base, Options{Cache: warm})
			before := warm.Stats()
			if got := reviewJSON(t, base, head, Options{Cache: warm}); got != want {
				t.Errorf("reuse across reviews changes the report:\n%s", cmp.Diff(want, got))
			}
			if after := warm.Stats(); after.Misses != before.Misses {
				t.Errorf("warm review built %d Kustomizations again, want 0", after.Misses-before.Misses)
			}
		})
	}
}

// reviewJSON reviews two plain trees and returns the JSON report without its timings.
func reviewJSON(t *testing.T, base, head string, opts Options) string {
	t.Helper()
	b, err := ReadDir(base, render.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := ReadDir(head, render.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	b.Rev, h.Rev = "base", "head"
	res, err := Trees(context.Background(), b, h, opts)
	if err != nil {
		t.Fatal(err)
	}
	res.Report.Timings = nil
	data, err := json.MarshalIndent(res.Report, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
