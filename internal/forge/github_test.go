package forge_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

const (
	headSHA = "1111111111111111111111111111111111111111"
	baseSHA = "2222222222222222222222222222222222222222"
	marker  = "<!-- tiergate -->"
)

func newGitHubToken(t *testing.T) (*forgetest.Server, forge.Client, *sleeper) {
	srv := forgetest.NewGitHub(t)
	sl := &sleeper{}
	clients, err := forge.NewGitHub(forge.GitHubOptions{APIURL: srv.URL, Token: forgetest.Token,
		Retry: forge.RetryOptions{Sleep: sl.sleep}})
	must(t, err)
	c, err := clients.For(0)
	must(t, err)
	return srv, c, sl
}

func newGitHubApp(t *testing.T) (*forgetest.Server, forge.Client) {
	srv := forgetest.NewGitHub(t)
	clients, err := forge.NewGitHub(forge.GitHubOptions{APIURL: srv.URL, AppID: forgetest.AppID, AppKeyPEM: forgetest.AppKeyPEM()})
	must(t, err)
	c, err := clients.For(99)
	must(t, err)
	return srv, c
}

func TestGitHubSetStatus(t *testing.T) {
	srv, c, _ := newGitHubToken(t)
	long := strings.Repeat("é", 150)
	must(t, c.SetStatus(context.Background(), repo, headSHA, forge.StatePending, "reviewing"))
	must(t, c.SetStatus(context.Background(), repo, headSHA, forge.StateFailure, long))
	path := "/repos/acme/fleet/statuses/" + headSHA
	assertCalls(t, srv, []forgetest.Call{
		{Method: "POST", Path: path, Body: map[string]any{"state": "pending", "context": "tiergate", "description": "reviewing"}},
		{Method: "POST", Path: path, Body: map[string]any{"state": "failure", "context": "tiergate", "description": strings.Repeat("é", 139) + "…"}},
	})
}

func TestGitHubUpsertSummary(t *testing.T) {
	srv, c, _ := newGitHubToken(t)
	srv.AddComment(7, "alice", marker+"\nnot mine")
	srv.AddComment(7, forgetest.BotLogin, "a plain comment")
	mine := srv.AddComment(7, forgetest.BotLogin, marker+"\nold")
	must(t, c.UpsertSummary(context.Background(), repo, 7, marker+"\nnew"))
	assertCalls(t, srv, []forgetest.Call{
		{Method: "GET", Path: "/user"},
		{Method: "GET", Path: "/repos/acme/fleet/issues/7/comments", Query: "per_page=100"},
		{Method: "PATCH", Path: fmt.Sprintf("/repos/acme/fleet/issues/comments/%d", mine), Body: map[string]any{"body": marker + "\nnew"}},
	})
	if got := srv.Comments(7)[2].Body; got != marker+"\nnew" {
		t.Errorf("summary body = %q", got)
	}
	if got := srv.Comments(7)[0].Body; got != marker+"\nnot mine" {
		t.Errorf("alice's comment changed to %q", got)
	}
}

func TestGitHubUpsertSummaryCreatesThenEdits(t *testing.T) {
	srv, c, _ := newGitHubToken(t)
	srv.AddComment(7, "alice", marker+"\nquoted by someone else")
	for i := 0; i < 120; i++ { // the second page is read too
		srv.AddComment(7, "bob", "chatter")
	}
	must(t, c.UpsertSummary(context.Background(), repo, 7, "first")) // the marker is added
	srv.ResetCalls()
	must(t, c.UpsertSummary(context.Background(), repo, 7, marker+"\nsecond"))
	comments := srv.Comments(7)
	last := comments[len(comments)-1]
	if last.Author != forgetest.BotLogin || last.Body != marker+"\nsecond" || len(comments) != 122 {
		t.Errorf("comments: %d, last %+v", len(comments), last)
	}
	want := []string{ // the identity is cached
		"GET /repos/acme/fleet/issues/7/comments",
		"GET /repos/acme/fleet/issues/7/comments",
		fmt.Sprintf("PATCH /repos/acme/fleet/issues/comments/%d", last.ID),
	}
	if d := cmp.Diff(want, paths(srv)); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
}

func TestGitHubChangedLines(t *testing.T) {
	srv, c, _ := newGitHubToken(t)
	srv.SetFiles(7,
		forgetest.File{Name: "apps/a.yaml", Patch: multiHunk},
		forgetest.File{Name: "new.yaml", Patch: "@@ -0,0 +1,2 @@\n+a: 1\n+b: 2"},
		forgetest.File{Name: "gone.yaml", Patch: "@@ -1,2 +0,0 @@\n-a: 1\n-b: 2"},
		forgetest.File{Name: "logo.png"}, // binary: no patch
	)
	got, err := c.ChangedLines(context.Background(), repo, 7)
	must(t, err)
	want := map[string]map[int]bool{"apps/a.yaml": multiHunkLines, "new.yaml": {1: true, 2: true}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
	assertCalls(t, srv, []forgetest.Call{{Method: "GET", Path: "/repos/acme/fleet/pulls/7/files", Query: "per_page=100"}})
}

func TestGitHubChangedLinesPages(t *testing.T) {
	srv, c, _ := newGitHubToken(t)
	var files []forgetest.File
	for i := 0; i < 250; i++ {
		files = append(files, forgetest.File{Name: fmt.Sprintf("f%03d.yaml", i), Patch: "@@ -1 +1 @@\n-a\n+b"})
	}
	srv.SetFiles(7, files...)
	got, err := c.ChangedLines(context.Background(), repo, 7)
	must(t, err)
	if len(got) != 250 || !got["f249.yaml"][1] {
		t.Errorf("got %d files", len(got))
	}
	if n := len(srv.Calls()); n != 3 {
		t.Errorf("%d calls, want 3 pages", n)
	}
}

func TestGitHubPostReview(t *testing.T) {
	srv, c, _ := newGitHubToken(t)
	must(t, c.PostReview(context.Background(), repo, 7, headSHA, nil))
	must(t, c.PostReview(context.Background(), repo, 7, headSHA, []forge.LineComment{
		{Path: "apps/a.yaml", Line: 3, Body: "moves"}, {Path: "b.yaml", Line: 10, Body: "prune"},
	}))
	assertCalls(t, srv, []forgetest.Call{{Method: "POST", Path: "/repos/acme/fleet/pulls/7/reviews", Body: map[string]any{
		"commit_id": headSHA, "event": "COMMENT",
		"body": "tiergate: 2 comments on changed lines; the summary comment has the whole review.\n\n<!-- tiergate review of " + headSHA + " -->",
		"comments": []any{
			map[string]any{"path": "apps/a.yaml", "line": 3.0, "side": "RIGHT", "body": "moves"},
			map[string]any{"path": "b.yaml", "line": 10.0, "side": "RIGHT", "body": "prune"},
		},
	}}})
}

func TestGitHubCanWrite(t *testing.T) {
	srv, c, _ := newGitHubToken(t)
	for user, role := range map[string]string{"ada": "admin", "max": "maintain", "wes": "write", "tom": "triage", "rae": "read"} {
		srv.SetPermission(user, role)
	}
	for user, want := range map[string]bool{"ada": true, "max": true, "wes": true, "tom": false, "rae": false, "nobody": false} {
		srv.ResetCalls()
		got, err := c.CanWrite(context.Background(), repo, user)
		must(t, err)
		if got != want {
			t.Errorf("CanWrite(%s) = %v, want %v", user, got, want)
		}
		assertCalls(t, srv, []forgetest.Call{{Method: "GET", Path: "/repos/acme/fleet/collaborators/" + user + "/permission"}})
	}
}

func TestGitHubReactReplyPullRequest(t *testing.T) {
	srv, c, _ := newGitHubToken(t)
	id := srv.AddComment(7, "alice", "/recheck")
	srv.SetPR(7, headSHA, baseSHA, true)
	ctx := context.Background()
	must(t, c.React(ctx, repo, id, "eyes"))
	must(t, c.Reply(ctx, repo, 7, "only writers may /recheck"))
	pr, err := c.PullRequest(ctx, repo, 7)
	must(t, err)
	if d := cmp.Diff(&forge.PullRequest{HeadSHA: headSHA, BaseSHA: baseSHA, Fork: true}, pr); d != "" {
		t.Errorf("PR (-want +got):\n%s", d)
	}
	user, pass, err := c.CloneAuth(ctx, repo)
	must(t, err)
	if user != "x-access-token" || pass != forgetest.Token {
		t.Errorf("CloneAuth = %q, %q", user, pass)
	}
	assertCalls(t, srv, []forgetest.Call{
		{Method: "POST", Path: fmt.Sprintf("/repos/acme/fleet/issues/comments/%d/reactions", id), Body: map[string]any{"content": "eyes"}},
		{Method: "POST", Path: "/repos/acme/fleet/issues/7/comments", Body: map[string]any{"body": "only writers may /recheck"}},
		{Method: "GET", Path: "/repos/acme/fleet/pulls/7"},
	})
	if _, isChecks := c.(forge.CheckRunner); isChecks {
		t.Error("a token client claims to publish check runs")
	}
}

func TestGitHubApp(t *testing.T) {
	srv, c := newGitHubApp(t)
	ctx := context.Background()
	must(t, c.SetStatus(ctx, repo, headSHA, forge.StateSuccess, "ok"))
	must(t, c.UpsertSummary(ctx, repo, 7, marker+"\nhello"))
	_, pass, err := c.CloneAuth(ctx, repo)
	must(t, err)
	if pass != "ghs_fake_installation_99" {
		t.Errorf("clone password = %q", pass)
	}
	if got := srv.Comments(7); len(got) != 1 || got[0].Author != "tiergate[bot]" {
		t.Errorf("comments = %+v", got)
	}
	want := []string{
		"POST /app/installations/99/access_tokens",
		"POST /repos/acme/fleet/statuses/" + headSHA, // its creator, "tiergate[bot]", is the identity: no GET /app
		"GET /repos/acme/fleet/issues/7/comments",
		"POST /repos/acme/fleet/issues/7/comments",
	}
	if d := cmp.Diff(want, paths(srv)); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
}

func TestGitHubCheckRunBatches(t *testing.T) {
	srv, c := newGitHubApp(t)
	var anns []forge.Annotation
	for i := 1; i <= 120; i++ {
		anns = append(anns, forge.Annotation{Path: "a.yaml", StartLine: i, EndLine: i, Level: "warning", Message: "m"})
	}
	anns[0].Title = "tier-move"
	must(t, c.(forge.CheckRunner).CheckRun(context.Background(), repo, headSHA, "failure", "2 errors", "summary", anns))
	calls := srv.Calls()[1:] // after the installation token
	var got []string
	for _, call := range calls {
		out, _ := call.Body.(map[string]any)["output"].(map[string]any)
		list, _ := out["annotations"].([]any)
		got = append(got, fmt.Sprintf("%s %s %d", call.Method, call.Path, len(list)))
	}
	run := "/repos/acme/fleet/check-runs" // the fake numbers its objects from 101
	want := []string{"POST " + run + " 0", "PATCH " + run + "/101 50", "PATCH " + run + "/101 50", "PATCH " + run + "/101 20"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("check run calls (-want +got):\n%s", d)
	}
	create := calls[0].Body.(map[string]any)
	if create["conclusion"] != "failure" || create["status"] != "completed" || create["head_sha"] != headSHA || create["name"] != "tiergate" {
		t.Errorf("create body = %v", create)
	}
	first := calls[1].Body.(map[string]any)["output"].(map[string]any)["annotations"].([]any)[0]
	wantFirst := map[string]any{"path": "a.yaml", "start_line": 1.0, "end_line": 1.0, "annotation_level": "warning", "message": "m", "title": "tier-move"}
	if d := cmp.Diff(wantFirst, first); d != "" {
		t.Errorf("first annotation (-want +got):\n%s", d)
	}
}

func TestGitHubRetries(t *testing.T) {
	statuses := "/repos/acme/fleet/statuses/" + headSHA
	date := time.Date(2025, 8, 5, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		status   int
		headers  map[string]string
		message  string
		wantErr  bool
		calls    int
		minSleep time.Duration
		maxSleep time.Duration
	}{
		{"500 then 200", 500, nil, "", false, 2, 100 * time.Millisecond, 200 * time.Millisecond},
		{"502 then 200", 502, nil, "", false, 2, 100 * time.Millisecond, 200 * time.Millisecond},
		{"429 Retry-After", 429, map[string]string{"Retry-After": "1"}, "", false, 2, time.Second, time.Second},
		{"429 Retry-After capped", 429, map[string]string{"Retry-After": "86400"}, "", false, 2, 5 * time.Minute, 5 * time.Minute},
		{"403 Retry-After", 403, map[string]string{"Retry-After": "3"}, "", false, 2, 3 * time.Second, 3 * time.Second},
		{"403 rate limit", 403, map[string]string{"X-RateLimit-Remaining": "0", "Date": date.Format(http.TimeFormat),
			"X-RateLimit-Reset": fmt.Sprint(date.Add(7 * time.Second).Unix())}, "", false, 2, 7 * time.Second, 7 * time.Second},
		{"403 secondary rate limit, no headers", 403, nil, secondaryMessage, false, 2, time.Minute, time.Minute},
		{"429 secondary rate limit, no headers", 429, nil, secondaryMessage, false, 2, time.Minute, time.Minute},
		{"403 secondary rate limit, Retry-After", 403, map[string]string{"Retry-After": "5"}, secondaryMessage, false, 2, 5 * time.Second, 5 * time.Second},
		{"403 forbidden", 403, nil, "", true, 1, 0, 0},
		{"403 forbidden, other message", 403, nil, "Resource not accessible by integration", true, 1, 0, 0},
		{"404", 404, nil, "", true, 1, 0, 0},
		{"422", 422, nil, "", true, 1, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, c, sl := newGitHubToken(t)
			if tc.message != "" {
				srv.FailNextMessage(statuses, tc.status, tc.headers, tc.message)
			} else {
				srv.FailNext(statuses, tc.status, tc.headers)
			}
			err := c.SetStatus(context.Background(), repo, headSHA, forge.StatePending, "x")
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			calls := srv.Calls()
			if len(calls) != tc.calls {
				t.Fatalf("%d calls, want %d", len(calls), tc.calls)
			}
			if tc.calls == 2 && !cmp.Equal(calls[0], calls[1]) {
				t.Errorf("the retry differs:\n%s", cmp.Diff(calls[0], calls[1]))
			}
			waits := sl.waits()
			if tc.calls == 1 && len(waits) != 0 || tc.calls == 2 && (len(waits) != 1 || waits[0] < tc.minSleep || waits[0] > tc.maxSleep) {
				t.Errorf("waits = %v, want one in [%v, %v]", waits, tc.minSleep, tc.maxSleep)
			}
		})
	}
}

// secondaryMessage is how GitHub words a secondary rate limit (docs.github.com, "Rate limits
// for the REST API").
const secondaryMessage = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."

// TestRetryGivesUp: a forge that keeps failing without naming a wait is tried 1+MaxRetries
// times, then its last answer is the error.
func TestRetryGivesUp(t *testing.T) {
	srv := forgetest.NewGitHub(t)
	sl := &sleeper{}
	clients, err := forge.NewGitHub(forge.GitHubOptions{APIURL: srv.URL, Token: forgetest.Token,
		Retry: forge.RetryOptions{Sleep: sl.sleep, MaxRetries: 3}})
	must(t, err)
	c, err := clients.For(0)
	must(t, err)
	statuses := "/repos/acme/fleet/statuses/" + headSHA
	for range 10 {
		srv.FailNext(statuses, http.StatusInternalServerError, nil)
	}
	err = c.SetStatus(context.Background(), repo, headSHA, forge.StatePending, "x")
	if err == nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("err = %v, want the 500", err)
	}
	if n := len(srv.Calls()); n != 4 {
		t.Errorf("%d calls, want 4", n)
	}
	if n := len(sl.waits()); n != 3 {
		t.Errorf("%d waits, want 3", n)
	}
}

// TestAttemptTimeout: a request the forge never answers is abandoned after AttemptTimeout
// and tried again; the second attempt's answer is the result.
func TestAttemptTimeout(t *testing.T) {
	for _, fl := range []struct {
		name string
		make func(t *testing.T, opts forge.RetryOptions) (*forgetest.Server, forge.Client, string)
	}{
		{"github", func(t *testing.T, opts forge.RetryOptions) (*forgetest.Server, forge.Client, string) {
			srv := forgetest.NewGitHub(t)
			clients, err := forge.NewGitHub(forge.GitHubOptions{APIURL: srv.URL, Token: forgetest.Token, Retry: opts})
			must(t, err)
			c, err := clients.For(0)
			must(t, err)
			return srv, c, "/repos/acme/fleet/statuses/" + headSHA
		}},
		{"gitea", func(t *testing.T, opts forge.RetryOptions) (*forgetest.Server, forge.Client, string) {
			srv := forgetest.NewGitea(t)
			c, err := forge.NewGitea(srv.URL, forgetest.Token, nil, opts)
			must(t, err)
			return srv, c, "/api/v1/repos/acme/fleet/statuses/" + headSHA
		}},
	} {
		t.Run(fl.name, func(t *testing.T) {
			sl := &sleeper{}
			srv, c, path := fl.make(t, forge.RetryOptions{Sleep: sl.sleep, AttemptTimeout: 200 * time.Millisecond})
			srv.StallNext(path)
			must(t, c.SetStatus(context.Background(), repo, headSHA, forge.StatePending, "x"))
			if got := paths(srv); !cmp.Equal(got, []string{"POST " + path, "POST " + path}) {
				t.Errorf("calls %v, want the status posted twice", got)
			}
			if n := len(sl.waits()); n != 1 {
				t.Errorf("%d waits, want 1", n)
			}
		})
	}
}

func TestGitHubRetryStopsWithContext(t *testing.T) {
	srv := forgetest.NewGitHub(t)
	ctx, cancel := context.WithCancel(context.Background())
	attempts := 0
	clients, err := forge.NewGitHub(forge.GitHubOptions{APIURL: srv.URL, Token: forgetest.Token,
		Retry: forge.RetryOptions{Sleep: func(ctx context.Context, d time.Duration) error {
			attempts++
			if attempts == 3 {
				cancel()
			}
			return ctx.Err()
		}}})
	must(t, err)
	c, err := clients.For(0)
	must(t, err)
	for i := 0; i < 10; i++ {
		srv.FailNext("/repos/acme/fleet/issues/7/comments", 503, nil)
	}
	err = c.Reply(ctx, repo, 7, "hi")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if n := len(srv.Calls()); n != 3 {
		t.Errorf("%d calls, want 3", n)
	}
}

func TestGitHubObserver(t *testing.T) {
	srv := forgetest.NewGitHub(t)
	obs := &observed{}
	clients, err := forge.NewGitHub(forge.GitHubOptions{APIURL: srv.URL, Token: forgetest.Token,
		Retry: forge.RetryOptions{Observer: obs.observe, Sleep: (&sleeper{}).sleep}})
	must(t, err)
	c, err := clients.For(0)
	must(t, err)
	srv.FailNext("/repos/acme/fleet/issues/7/comments", 500, nil)
	must(t, c.Reply(context.Background(), repo, 7, "hi"))
	if d := cmp.Diff([]string{"github POST 500", "github POST 201"}, obs.got); d != "" {
		t.Errorf("observed (-want +got):\n%s", d)
	}
}

func TestNewGitHubOptions(t *testing.T) {
	for name, opts := range map[string]forge.GitHubOptions{
		"nothing":  {},
		"both":     {Token: "t", AppID: 1, AppKeyPEM: forgetest.AppKeyPEM()},
		"no key":   {AppID: 1},
		"bad key":  {AppID: 1, AppKeyPEM: []byte("nope")},
		"bad URL":  {Token: "t", APIURL: "::"},
		"relative": {Token: "t", APIURL: "/api/v3"},
	} {
		if _, err := forge.NewGitHub(opts); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	clients, err := forge.NewGitHub(forge.GitHubOptions{AppID: 1, AppKeyPEM: forgetest.AppKeyPEM()})
	must(t, err)
	if _, err := clients.For(0); err == nil {
		t.Error("App client without an installation id")
	}
}
