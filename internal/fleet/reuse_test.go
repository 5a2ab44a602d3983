package fleet_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/fleet"
	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/render"
)

// TestReuseEqualsRebuild reviews every PR shape three ways — a full rebuild with
// fluxcd/pkg/kustomize.Build, the default (the head reuses the base's builds), and with the
// server's cache already holding the base — and requires the same report from each.
func TestReuseEqualsRebuild(t *testing.T) {
	fr, g := write(t, small)
	for _, sh := range fleet.Shapes {
		t.Run(string(sh), func(t *testing.T) {
			head := fr.Heads[sh]
			want := reportJSON(t, g, fr, head, pipeline.Options{NoReuse: true})
			if got := reportJSON(t, g, fr, head, pipeline.Options{}); got != want {
				t.Errorf("reuse within the review changes the report:\n%s", cmp.Diff(want, got))
			}
			warm := render.NewCache(0)
			reportJSON(t, g, fr, fr.Base, pipeline.Options{Cache: warm}) // the server reviewed main
			if got := reportJSON(t, g, fr, head, pipeline.Options{Cache: warm}); got != want {
				t.Errorf("reuse across reviews changes the report:\n%s", cmp.Diff(want, got))
			}
		})
	}
}

func reportJSON(t *testing.T, g *gitrepo.Repo, fr *fleet.Repo, head plumbing.Hash, opts pipeline.Options) string {
	t.Helper()
	res, err := pipeline.Commits(context.Background(), g, fr.Base, head, opts)
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
