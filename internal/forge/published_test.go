package forge_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// readBack is what a resumed run reads back from a client: the head's status, whether the
// bot's review of head and of otherSHA is there, and the bot's login.
type readBack struct {
	Status              forge.State
	Review, OtherReview bool
	Login               string
}

func readAll(t *testing.T, c forge.Client) readBack {
	t.Helper()
	ctx := context.Background()
	f := c.(forge.PublishedFinder)
	var got readBack
	var err error
	got.Status, err = f.HeadStatus(ctx, repo, headSHA)
	must(t, err)
	got.Review, err = f.HasReview(ctx, repo, 3, headSHA)
	must(t, err)
	got.OtherReview, err = f.HasReview(ctx, repo, 3, baseSHA)
	must(t, err)
	got.Login, err = c.(forge.Identifier).Login(ctx)
	must(t, err)
	return got
}

// TestReadBack: the newest tiergate status of the head counts; the bot's review is found on
// its commit only; the login is the token's user.
func TestReadBack(t *testing.T) {
	check := func(t *testing.T, c forge.Client) {
		ctx := context.Background()
		if d := cmp.Diff(readBack{Login: forgetest.BotLogin}, readAll(t, c)); d != "" {
			t.Errorf("nothing published (-want +got):\n%s", d)
		}
		must(t, c.SetStatus(ctx, repo, headSHA, forge.StatePending, "reviewing"))
		must(t, c.SetStatus(ctx, repo, headSHA, forge.StateFailure, "2 new errors"))
		must(t, c.PostReview(ctx, repo, 3, headSHA, []forge.LineComment{{Path: "a.yaml", Line: 2, Body: "**rule** (error): x"}}))
		want := readBack{Status: forge.StateFailure, Review: true, Login: forgetest.BotLogin}
		if d := cmp.Diff(want, readAll(t, c)); d != "" {
			t.Errorf("after a review (-want +got):\n%s", d)
		}
	}
	t.Run("github", func(t *testing.T) {
		_, c, _ := newGitHubToken(t)
		check(t, c)
	})
	eachGitea(t, func(t *testing.T, _ *forgetest.Server, c forge.Client, _ *sleeper) { check(t, c) })
}

// TestHasCheckRun: an App finds its own check run on the head, and none on another commit.
func TestHasCheckRun(t *testing.T) {
	_, c := newGitHubApp(t)
	ctx := context.Background()
	f := c.(forge.CheckRunFinder)
	found, err := f.HasCheckRun(ctx, repo, headSHA)
	must(t, err)
	if found {
		t.Fatal("a check run found before one was created")
	}
	must(t, c.(forge.CheckRunner).CheckRun(ctx, repo, headSHA, "failure", "2 new errors", "summary", nil))
	for sha, want := range map[string]bool{headSHA: true, baseSHA: false} {
		found, err := f.HasCheckRun(ctx, repo, sha)
		must(t, err)
		if found != want {
			t.Errorf("HasCheckRun(%s) = %v, want %v", sha[:7], found, want)
		}
	}
}
