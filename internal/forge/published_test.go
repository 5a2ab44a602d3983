package forge_test

import (
	"context"
	"net/http"
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

// TestHasReviewAccountUnknown: while the forge refuses to name the token's account (403 on
// GET /user: the Action's token), a person's review of the head that starts like the
// bot's ("tiergate: ...") does not count as the bot's, so the line review is still posted;
// the bot's own earlier review of the head does (on GitHub, by the Actions app, a Bot;
// on Gitea and Forgejo, which mark no bots, by the marker of the head), and one of another
// head does not.
func TestHasReviewAccountUnknown(t *testing.T) {
	mine := "tiergate: 1 comment on changed lines; the summary comment has the whole review.\n\n" + forge.ReviewMarker(headSHA)
	for _, tc := range tokenClients() {
		t.Run(tc.name, func(t *testing.T) {
			srv, c, _ := tc.new(t)
			srv.FailNext(tc.user, http.StatusForbidden, nil)
			ctx := context.Background()
			f := c.(forge.PublishedFinder)
			srv.AddReview(3, "rita", headSHA, "tiergate: looks fine to me")
			srv.AddReview(3, "github-actions[bot]", headSHA, "tiergate: 1 comment on changed lines; the summary comment has the whole review.")
			srv.AddReview(3, "github-actions[bot]", baseSHA, mine)
			found, err := f.HasReview(ctx, repo, 3, headSHA)
			must(t, err)
			if found {
				t.Fatal("HasReview = true for a person's lookalike review, want false")
			}
			if login, err := c.(forge.Identifier).Login(ctx); err != nil || login != "" {
				t.Fatalf("Login = %q, %v; want the account unknown", login, err)
			}
			srv.AddReview(3, "github-actions[bot]", headSHA, mine)
			found, err = f.HasReview(ctx, repo, 3, headSHA)
			must(t, err)
			if !found {
				t.Error("HasReview = false after the bot's own review of the head, want true")
			}
		})
	}
}

// TestHasReviewPersonCopiesMarker: on GitHub, with the account unknown, a person's review
// that copies the bot's whole body, marker included, still does not count: only a Bot's
// does.
func TestHasReviewPersonCopiesMarker(t *testing.T) {
	srv, c, _ := newGitHubToken(t)
	srv.FailNext("/user", http.StatusForbidden, nil)
	srv.AddReview(3, "rita", headSHA, "tiergate: 1 comment on changed lines; the summary comment has the whole review.\n\n"+forge.ReviewMarker(headSHA))
	found, err := c.(forge.PublishedFinder).HasReview(context.Background(), repo, 3, headSHA)
	must(t, err)
	if found {
		t.Error("HasReview = true for a person's copy of the bot's body, want false")
	}
}
