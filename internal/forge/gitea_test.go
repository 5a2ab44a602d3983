package forge_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// giteaFakes runs each Gitea test against both API descriptions.
var giteaFakes = []struct {
	name string
	new  func(testing.TB) *forgetest.Server
}{
	{"gitea", forgetest.NewGitea},
	{"forgejo", forgetest.NewForgejo},
}

func eachGitea(t *testing.T, test func(t *testing.T, srv *forgetest.Server, c forge.Client, sl *sleeper)) {
	for _, f := range giteaFakes {
		t.Run(f.name, func(t *testing.T) {
			srv := f.new(t)
			sl := &sleeper{}
			c, err := forge.NewGitea(srv.URL, forgetest.Token, nil, forge.RetryOptions{Sleep: sl.sleep})
			must(t, err)
			test(t, srv, c, sl)
		})
	}
}

const api = "/api/v1/repos/acme/fleet"

func TestGiteaSetStatus(t *testing.T) {
	eachGitea(t, func(t *testing.T, srv *forgetest.Server, c forge.Client, _ *sleeper) {
		must(t, c.SetStatus(context.Background(), repo, headSHA, forge.StateSuccess, "no new findings"))
		assertCalls(t, srv, []forgetest.Call{{Method: "POST", Path: api + "/statuses/" + headSHA, Body: map[string]any{
			"state": "success", "context": "tiergate", "description": "no new findings", "target_url": ""}}})
	})
}

func TestGiteaUpsertSummary(t *testing.T) {
	eachGitea(t, func(t *testing.T, srv *forgetest.Server, c forge.Client, _ *sleeper) {
		srv.AddComment(3, "alice", marker+"\nnot mine")
		mine := srv.AddComment(3, forgetest.BotLogin, marker+"\nold")
		ctx := context.Background()
		must(t, c.UpsertSummary(ctx, repo, 3, marker+"\nnew"))
		assertCalls(t, srv, []forgetest.Call{
			{Method: "GET", Path: "/api/v1/user"},
			{Method: "GET", Path: api + "/issues/3/comments", Query: "limit=0&page=1"},
			{Method: "PATCH", Path: fmt.Sprintf("%s/issues/comments/%d", api, mine), Body: map[string]any{"body": marker + "\nnew"}},
		})
		want := []forgetest.Comment{{ID: mine - 1, Author: "alice", Body: marker + "\nnot mine"}, {ID: mine, Author: forgetest.BotLogin, Body: marker + "\nnew"}}
		if d := cmp.Diff(want, srv.Comments(3)); d != "" {
			t.Errorf("comments (-want +got):\n%s", d)
		}

		srv.ResetCalls() // a PR without a summary gets one; the identity is cached
		must(t, c.UpsertSummary(ctx, repo, 4, "body"))
		assertCalls(t, srv, []forgetest.Call{
			{Method: "GET", Path: api + "/issues/4/comments", Query: "limit=0&page=1"},
			{Method: "POST", Path: api + "/issues/4/comments", Body: map[string]any{"body": marker + "\nbody"}},
		})
	})
}

func TestGiteaChangedLines(t *testing.T) {
	eachGitea(t, func(t *testing.T, srv *forgetest.Server, c forge.Client, _ *sleeper) {
		srv.SetFiles(5,
			forgetest.File{Name: "apps/a.yaml", Patch: multiHunk},
			forgetest.File{Name: "b.yaml", Patch: "@@ -3 +3 @@\n-x\n+y\n"},
		)
		got, err := c.ChangedLines(context.Background(), repo, 5)
		must(t, err)
		want := map[string]map[int]bool{"apps/a.yaml": multiHunkLines, "b.yaml": {3: true}}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("lines (-want +got):\n%s", d)
		}
		assertCalls(t, srv, []forgetest.Call{{Method: "GET", Path: api + "/pulls/5.diff"}})
	})
}

func TestGiteaPostReview(t *testing.T) {
	eachGitea(t, func(t *testing.T, srv *forgetest.Server, c forge.Client, _ *sleeper) {
		ctx := context.Background()
		must(t, c.PostReview(ctx, repo, 5, headSHA, nil))
		must(t, c.PostReview(ctx, repo, 5, headSHA, []forge.LineComment{{Path: "apps/a.yaml", Line: 22, Body: "prune"}}))
		assertCalls(t, srv, []forgetest.Call{{Method: "POST", Path: api + "/pulls/5/reviews", Body: map[string]any{
			"event": "COMMENT", "commit_id": headSHA,
			"body":     "tiergate: 1 comment on changed lines; the summary comment has the whole review.\n\n<!-- tiergate review of " + headSHA + " -->",
			"comments": []any{map[string]any{"path": "apps/a.yaml", "body": "prune", "new_position": 22.0, "old_position": 0.0}},
		}}})
	})
}

func TestGiteaCanWrite(t *testing.T) {
	eachGitea(t, func(t *testing.T, srv *forgetest.Server, c forge.Client, _ *sleeper) {
		for user, perm := range map[string]string{"ada": "admin", "oli": "owner", "wes": "write", "rae": "read", "nan": "none"} {
			srv.SetPermission(user, perm)
		}
		for user, want := range map[string]bool{"ada": true, "oli": true, "wes": true, "rae": false, "nan": false, "nobody": false} {
			srv.ResetCalls()
			got, err := c.CanWrite(context.Background(), repo, user)
			must(t, err)
			if got != want {
				t.Errorf("CanWrite(%s) = %v, want %v", user, got, want)
			}
			assertCalls(t, srv, []forgetest.Call{{Method: "GET", Path: api + "/collaborators/" + user + "/permission"}})
		}
	})
}

func TestGiteaReactReplyPullRequest(t *testing.T) {
	eachGitea(t, func(t *testing.T, srv *forgetest.Server, c forge.Client, _ *sleeper) {
		id := srv.AddComment(5, "alice", "/recheck")
		srv.SetPR(5, headSHA, baseSHA, false)
		ctx := context.Background()
		must(t, c.React(ctx, repo, id, "+1"))
		must(t, c.Reply(ctx, repo, 5, "queued"))
		pr, err := c.PullRequest(ctx, repo, 5)
		must(t, err)
		if d := cmp.Diff(&forge.PullRequest{HeadSHA: headSHA, BaseSHA: baseSHA}, pr); d != "" {
			t.Errorf("PR (-want +got):\n%s", d)
		}
		user, pass, err := c.CloneAuth(ctx, repo)
		must(t, err)
		if user != "tiergate" || pass != forgetest.Token {
			t.Errorf("CloneAuth = %q, %q", user, pass)
		}
		assertCalls(t, srv, []forgetest.Call{
			{Method: "POST", Path: fmt.Sprintf("%s/issues/comments/%d/reactions", api, id), Body: map[string]any{"content": "+1"}},
			{Method: "POST", Path: api + "/issues/5/comments", Body: map[string]any{"body": "queued"}},
			{Method: "GET", Path: api + "/pulls/5"},
		})
	})
}

func TestGiteaRetries(t *testing.T) {
	eachGitea(t, func(t *testing.T, srv *forgetest.Server, c forge.Client, sl *sleeper) {
		srv.FailNext("/repos/acme/fleet/statuses/"+headSHA, http.StatusInternalServerError, nil)
		srv.FailNext("/repos/acme/fleet/statuses/"+headSHA, http.StatusTooManyRequests, map[string]string{"Retry-After": "2"})
		must(t, c.SetStatus(context.Background(), repo, headSHA, forge.StatePending, "x"))
		if n := len(srv.Calls()); n != 3 {
			t.Errorf("%d calls, want 3", n)
		}
		if w := sl.waits(); len(w) != 2 || w[0] > 200*time.Millisecond || w[1] != 2*time.Second {
			t.Errorf("waits = %v", w)
		}
		srv.ResetCalls()
		if _, err := c.PullRequest(context.Background(), repo, 404); err == nil {
			t.Error("missing PR: no error")
		}
		if n := len(srv.Calls()); n != 1 {
			t.Errorf("404: %d calls, want 1", n)
		}
	})
}

func TestNewGiteaOptions(t *testing.T) {
	for name, args := range map[string][2]string{"no token": {"https://codeberg.org", ""}, "bad URL": {"codeberg.org", "t"}} {
		if _, err := forge.NewGitea(args[0], args[1], nil); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
