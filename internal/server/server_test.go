package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/review/format"
)

const demoDescription = "2 new errors, 1 new notice · 1 cluster"

// demoComments are the line comments of the demo scenario, as (path, line, body prefix).
var demoComments = []string{
	demoFile + ":2 **missing-depends-on** (error): ",
	demoFile + ":2 **prune-transient** (error): ",
	demoFile + ":2 **tier-move** (notice): ",
}

// reviewCalls are the calls one review of sha makes, comments shortened as demoComments.
func reviewCalls(sha string) []call {
	return []call{
		{Method: "PullRequest"},
		{Method: "SetStatus", SHA: sha, State: forge.StatePending, Text: pendingDescription},
		{Method: "UpsertSummary", Text: format.Marker},
		{Method: "ChangedLines"},
		{Method: "PostReview", SHA: sha, Comments: shortComments(demoComments)},
		{Method: "SetStatus", SHA: sha, State: forge.StateFailure, Text: demoDescription},
	}
}

// reviewCallsSettling is reviewCalls(sha) of a job that replaced the pending heads older:
// each gets status error "superseded by <sha7>" once sha is known to be the newest.
func reviewCallsSettling(sha string, older ...string) []call {
	run := reviewCalls(sha)
	out := append([]call(nil), run[:2]...)
	for _, o := range older {
		out = append(out, call{Method: "SetStatus", SHA: o, State: forge.StateError, Text: "superseded by " + sha[:7]})
	}
	return append(out, run[2:]...)
}

func shortComments(prefixes []string) []forge.LineComment {
	var out []forge.LineComment
	for _, p := range prefixes {
		out = append(out, forge.LineComment{Body: p})
	}
	return out
}

// shorten replaces each line comment by "path:line body-prefix" so that rule messages
// (tested in the rules package) do not make these tests brittle.
func shorten(calls []call) []call {
	out := make([]call, len(calls))
	for i, c := range calls {
		if c.Comments != nil {
			var cs []forge.LineComment
			for _, lc := range c.Comments {
				prefix, _, _ := strings.Cut(lc.Body, "): ")
				cs = append(cs, forge.LineComment{Body: lc.Path + ":" + itoa(lc.Line) + " " + prefix + "): "})
			}
			c.Comments = cs
		}
		out[i] = c
	}
	return out
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func status(rec interface{ Result() *http.Response }) (int, string) {
	resp := rec.Result()
	var body struct{ Status, Error string }
	json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body.Status + body.Error
}

func TestBadSignature(t *testing.T) {
	h := newHarness(t)
	h.start()
	payload := ghPR("synchronize", 7, shaA, false)
	for name, secret := range map[string]string{"wrong secret": "guess", "no signature": ""} {
		t.Run(name, func(t *testing.T) {
			code, _ := status(h.github("pull_request", "d-1", payload, secret))
			if code != http.StatusUnauthorized {
				t.Fatalf("status %d, want 401", code)
			}
		})
	}
	hd := http.Header{"X-Gitea-Event": {"pull_request"}, "X-Gitea-Delivery": {"g-1"}, "X-Gitea-Signature": {mac(payload, ghSecret)}}
	if code, _ := status(h.do(http.MethodPost, "/webhooks/gitea", hd, payload)); code != http.StatusUnauthorized {
		t.Fatalf("gitea with the GitHub secret: status %d, want 401", code)
	}
	if jobs := h.storedJobs(); len(jobs) != 0 {
		t.Fatalf("stored jobs %+v, want none", jobs)
	}
	// The rejected deliveries were not recorded: the same id, signed, is accepted.
	if code, s := status(h.github("pull_request", "d-1", payload, ghSecret)); code != http.StatusAccepted {
		t.Fatalf("signed delivery: %d %s, want 202", code, s)
	}
}

func TestPingAndIgnored(t *testing.T) {
	h := newHarness(t)
	h.opts.BotLogins = map[forge.Kind]string{forge.GitHub: "tiergate-bot"}
	h.open()
	tests := []struct {
		name, event string
		payload     []byte
		code        int
		status      string
	}{
		{"ping", "ping", mustJSON(map[string]any{"zen": "Keep it logically awesome.", "hook_id": 1}), 200, "pong"},
		{"closed PR", "pull_request", ghPR("closed", 7, shaA, false), 202, "ignored"},
		{"push", "push", mustJSON(map[string]any{"ref": "refs/heads/main"}), 202, "ignored"},
		{"comment without /recheck", "issue_comment", ghComment(7, 1, "alice", "User", "LGTM, /recheck later"), 202, "ignored"},
		{"/recheck by a bot", "issue_comment", ghComment(7, 2, "renovate[bot]", "Bot", "/recheck"), 202, "ignored"},
		{"/recheck by the bot's own account", "issue_comment", ghComment(7, 3, "Tiergate-Bot", "User", "/recheck"), 202, "ignored"},
		{"summary comment", "issue_comment", ghComment(7, 4, "someone", "User", format.Marker+"\n/recheck\n"), 202, "ignored"},
		{"/recheck on an issue", "issue_comment", mustJSON(map[string]any{
			"action": "created", "issue": map[string]any{"number": 3}, "repository": ghRepo,
			"comment": map[string]any{"id": 5, "body": "/recheck", "user": map[string]any{"login": "alice", "type": "User"}},
		}), 202, "ignored"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, s := status(h.github(tc.event, "d-"+itoa(i), tc.payload, ghSecret))
			if code != tc.code || s != tc.status {
				t.Fatalf("got %d %q, want %d %q", code, s, tc.code, tc.status)
			}
		})
	}
	if jobs := h.storedJobs(); len(jobs) != 0 {
		t.Fatalf("stored jobs %+v, want none", jobs)
	}
}

func TestReview(t *testing.T) {
	h := newHarness(t)
	h.start()
	if code, s := status(h.github("pull_request", "d-1", ghPR("synchronize", 7, shaA, false), ghSecret)); code != http.StatusAccepted || s != "queued" {
		t.Fatalf("got %d %q, want 202 queued", code, s)
	}
	calls := h.waitFor("final status", finalStatus(shaA))
	if diff := cmp.Diff(reviewCalls(shaA), shorten(calls)); diff != "" {
		t.Fatalf("forge calls (-want +got):\n%s", diff)
	}
	h.waitStoreEmpty()
	ev := h.fetch.fetched()[0]
	want := forge.Event{Forge: forge.GitHub, DeliveryID: "d-1", Type: forge.EventReview, PR: 7, HeadSHA: shaA, BaseSHA: shaBase,
		InstallationID: 42, Repo: forge.Repo{Owner: "acme", Name: "fleet", CloneURL: "https://github.example/acme/fleet.git"}}
	if diff := cmp.Diff(want, ev); diff != "" {
		t.Fatalf("fetched event (-want +got):\n%s", diff)
	}
	metrics := []string{`tiergate_reviews_total{result="failure"} 1`, "tiergate_review_duration_seconds_count 1", "tiergate_queue_depth 0",
		// base: flux-system, infra, apps built; head: only infra is unchanged.
		"tiergate_build_cache_hits_total 1", "tiergate_build_cache_misses_total 6"}
	for _, p := range []string{"fetch", "checkout", "render_base", "render_head", "diff", "rules", "publish"} {
		metrics = append(metrics, `tiergate_review_phase_seconds_count{phase="`+p+`"} 1`)
	}
	for _, m := range metrics {
		if !strings.Contains(h.metrics(), m) {
			t.Errorf("metrics lack %q", m)
		}
	}
}

func TestGiteaReview(t *testing.T) {
	h := newHarness(t)
	h.start()
	repo := map[string]any{"id": 9, "name": "fleet", "full_name": "acme/fleet", "owner": map[string]any{"login": "acme"},
		"clone_url": "https://gitea.example/acme/fleet.git"}
	payload := mustJSON(map[string]any{
		"action": "synchronized", "number": 3,
		"pull_request": map[string]any{"number": 3,
			"head": map[string]any{"sha": shaA, "repo_id": 9}, "base": map[string]any{"sha": shaBase, "repo_id": 9}},
		"repository": repo,
	})
	if code, s := status(h.gitea("pull_request", "g-1", payload, giteaSecret)); code != http.StatusAccepted {
		t.Fatalf("got %d %q, want 202", code, s)
	}
	calls := h.waitFor("final status", finalStatus(shaA))
	if diff := cmp.Diff(reviewCalls(shaA), shorten(calls)); diff != "" {
		t.Fatalf("forge calls (-want +got):\n%s", diff)
	}
	if ev := h.fetch.fetched()[0]; ev.Forge != forge.Gitea || ev.PR != 3 || ev.Repo.CloneURL != "https://gitea.example/acme/fleet.git" {
		t.Fatalf("fetched %+v", ev)
	}
}

func TestDuplicateDelivery(t *testing.T) {
	h := newHarness(t)
	h.open()
	payload := ghPR("opened", 7, shaA, false)
	if code, _ := status(h.github("pull_request", "d-1", payload, ghSecret)); code != http.StatusAccepted {
		t.Fatalf("first delivery: %d, want 202", code)
	}
	if code, s := status(h.github("pull_request", "d-1", payload, ghSecret)); code != http.StatusOK || s != "duplicate" {
		t.Fatalf("redelivery: %d %q, want 200 duplicate", code, s)
	}
	h.start()
	h.waitFor("final status", finalStatus(shaA))
	h.waitStoreEmpty()
	if code, s := status(h.github("pull_request", "d-1", payload, ghSecret)); code != http.StatusOK || s != "duplicate" {
		t.Fatalf("redelivery after the run: %d %q, want 200 duplicate", code, s)
	}
	if jobs := h.storedJobs(); len(jobs) != 0 {
		t.Fatalf("redelivery stored %+v", jobs)
	}
	if n := len(h.fetch.fetched()); n != 1 {
		t.Fatalf("%d runs, want 1", n)
	}
}

func TestNewerHeadSupersedes(t *testing.T) {
	h := newHarness(t)
	h.fetch.hold[shaA] = true
	h.start()
	h.github("pull_request", "d-1", ghPR("opened", 7, shaA, false), ghSecret)
	if got := <-h.fetch.started; got != shaA {
		t.Fatalf("fetch started for %s", got)
	}
	h.github("pull_request", "d-2", ghPR("synchronize", 7, shaB, false), ghSecret)
	calls := h.waitFor("final status of B", finalStatus(shaB))
	h.waitStoreEmpty()

	bySHA := map[string][]call{}
	for _, c := range calls {
		if c.Method == "SetStatus" {
			bySHA[c.SHA] = append(bySHA[c.SHA], c)
		}
	}
	want := map[string][]call{
		shaA: {
			{Method: "SetStatus", SHA: shaA, State: forge.StatePending, Text: pendingDescription},
			{Method: "SetStatus", SHA: shaA, State: forge.StateError, Text: "superseded by bbbbbbb"},
		},
		shaB: {
			{Method: "SetStatus", SHA: shaB, State: forge.StatePending, Text: pendingDescription},
			{Method: "SetStatus", SHA: shaB, State: forge.StateFailure, Text: demoDescription},
		},
	}
	if diff := cmp.Diff(want, bySHA); diff != "" {
		t.Fatalf("statuses (-want +got):\n%s", diff)
	}
	for _, c := range calls {
		if c.Method == "PostReview" && c.SHA != shaB {
			t.Errorf("review posted on %s", c.SHA)
		}
	}
	if m := h.metrics(); !strings.Contains(m, `tiergate_reviews_total{result="superseded"} 1`) {
		t.Errorf("superseded run not counted:\n%s", m)
	}
}

func TestRecheck(t *testing.T) {
	t.Run("writer", func(t *testing.T) {
		h := newHarness(t)
		h.fc.canWrite = true
		h.fc.setPR(7, forge.PullRequest{HeadSHA: shaC, BaseSHA: shaBase})
		h.start()
		if code, s := status(h.github("issue_comment", "c-1", ghComment(7, 99, "alice", "User", "Rebased.\n  /recheck  \n"), ghSecret)); code != http.StatusAccepted || s != "queued" {
			t.Fatalf("got %d %q, want 202 queued", code, s)
		}
		calls := h.waitFor("final status", finalStatus(shaC))
		want := append([]call{
			{Method: "CanWrite", Text: "alice"},
			{Method: "React", Text: "99 +1"},
			{Method: "PullRequest"},
		}, reviewCalls(shaC)...)
		if diff := cmp.Diff(want, shorten(calls)); diff != "" {
			t.Fatalf("forge calls (-want +got):\n%s", diff)
		}
		if ev := h.fetch.fetched()[0]; ev.HeadSHA != shaC || ev.BaseSHA != shaBase {
			t.Fatalf("fetched head %s base %s, want the PR's current ones", ev.HeadSHA, ev.BaseSHA)
		}
		h.waitStoreEmpty()
	})
	t.Run("reader", func(t *testing.T) {
		h := newHarness(t)
		h.start()
		if code, _ := status(h.github("issue_comment", "c-1", ghComment(7, 99, "bob", "User", "/recheck"), ghSecret)); code != http.StatusAccepted {
			t.Fatalf("got %d, want 202", code)
		}
		h.waitFor("reply", func(c []call) bool { return len(c) == 2 })
		h.waitStoreEmpty()
		want := []call{{Method: "CanWrite", Text: "bob"}, {Method: "Reply", Text: "@bob only users with write access can /recheck\n\n<!-- tiergate reply to comment 99 -->"}}
		if diff := cmp.Diff(want, h.fc.snapshot()); diff != "" {
			t.Fatalf("forge calls (-want +got):\n%s", diff)
		}
		if n := len(h.fetch.fetched()); n != 0 {
			t.Fatalf("%d fetches, want none", n)
		}
	})
}

// A reader's /recheck that arrives while a review runs is answered at once and runs nothing:
// the review runs once.
func TestRecheckByReaderDuringReview(t *testing.T) {
	h := newHarness(t)
	h.fetch.hold[shaA] = true
	h.start()
	h.github("pull_request", "d-1", ghPR("synchronize", 7, shaA, false), ghSecret)
	<-h.fetch.started
	if code, s := status(h.github("issue_comment", "c-1", ghComment(7, 99, "bob", "User", "/recheck"), ghSecret)); code != http.StatusAccepted || s != "queued" {
		t.Fatalf("got %d %q, want 202 queued", code, s)
	}
	refusal := call{Method: "Reply", Text: "@bob only users with write access can /recheck\n\n<!-- tiergate reply to comment 99 -->"}
	h.waitFor("reply", func(calls []call) bool { return len(calls) == 4 })
	close(h.fetch.release)
	calls := h.waitFor("final status", finalStatus(shaA))
	h.waitStoreEmpty()
	run := reviewCalls(shaA)
	want := append([]call{run[0], run[1], {Method: "CanWrite", Text: "bob"}, refusal}, run[2:]...)
	if diff := cmp.Diff(want, shorten(calls)); diff != "" {
		t.Fatalf("forge calls (-want +got):\n%s", diff)
	}
	if n := len(h.fetch.fetched()); n != 1 {
		t.Fatalf("%d review runs, want 1", n)
	}
	if m := h.metrics(); !strings.Contains(m, `tiergate_reviews_total{result="failure"} 1`) {
		t.Errorf("want one review counted:\n%s", m)
	}
}

// A /recheck is stored apart from the PR's review job, and both survive a restart.
func TestRecheckStoredApart(t *testing.T) {
	h := newHarness(t)
	h.open()
	h.github("pull_request", "d-1", ghPR("synchronize", 7, shaA, false), ghSecret)
	h.github("issue_comment", "c-1", ghComment(7, 99, "bob", "User", "/recheck"), ghSecret)
	keys, jobs, err := h.srv.store.jobs()
	if err != nil {
		t.Fatal(err)
	}
	type stored struct {
		Key  string
		Kind jobKind
		Head string
	}
	var got []stored
	for i, k := range keys {
		got = append(got, stored{k, jobs[i].Kind, jobs[i].HeadSHA})
	}
	want := []stored{{"github/acme/fleet/7", kindReview, shaA}, {"github/acme/fleet/7/recheck/99", kindRecheck, ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("stored jobs (-want +got):\n%s", diff)
	}
	h.close()

	h.open()
	h.start()
	calls := h.waitFor("reply and final status", func(c []call) bool { return len(c) == 2+len(reviewCalls(shaA)) })
	h.waitStoreEmpty()
	var answer, review []call // the two jobs run side by side
	for _, c := range calls {
		if c.Method == "CanWrite" || c.Method == "Reply" {
			answer = append(answer, c)
		} else {
			review = append(review, c)
		}
	}
	if diff := cmp.Diff([]call{{Method: "CanWrite", Text: "bob"}, {Method: "Reply", Text: "@bob only users with write access can /recheck\n\n<!-- tiergate reply to comment 99 -->"}}, answer); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(reviewCalls(shaA), shorten(review)); diff != "" {
		t.Errorf("review (-want +got):\n%s", diff)
	}
}

// A writer's /recheck while an older head is reviewed queues the PR's current head, which
// supersedes the running review as a push would.
func TestRecheckByWriterSupersedes(t *testing.T) {
	h := newHarness(t)
	h.fc.canWrite = true
	h.fetch.hold[shaA] = true
	h.start()
	h.github("pull_request", "d-1", ghPR("synchronize", 7, shaA, false), ghSecret)
	<-h.fetch.started
	h.fc.setPR(7, forge.PullRequest{HeadSHA: shaB, BaseSHA: shaBase}) // pushed, not delivered yet
	h.github("issue_comment", "c-1", ghComment(7, 99, "alice", "User", "/recheck"), ghSecret)
	calls := h.waitFor("final status of B", finalStatus(shaB))
	h.waitStoreEmpty()
	want := append([]call{
		{Method: "PullRequest"},
		{Method: "SetStatus", SHA: shaA, State: forge.StatePending, Text: pendingDescription},
		{Method: "CanWrite", Text: "alice"},
		{Method: "React", Text: "99 +1"},
		{Method: "PullRequest"},
	}, reviewCallsSettling(shaB, shaA)...)
	if diff := cmp.Diff(want, shorten(calls)); diff != "" {
		t.Fatalf("forge calls (-want +got):\n%s", diff)
	}
}

// With a client that publishes check runs, the check run comes after the line comments and
// before the final status, with the status's conclusion and description.
func TestCheckRun(t *testing.T) {
	h := newHarness(t)
	h.opts.Forges = stubForges{checkClient{h.fc}}
	h.start()
	h.github("pull_request", "d-1", ghPR("synchronize", 7, shaA, false), ghSecret)
	calls := h.waitFor("final status", finalStatus(shaA))
	h.waitStoreEmpty()
	run := reviewCalls(shaA)
	check := call{Method: "CheckRun", SHA: shaA, State: forge.StateFailure, Text: demoDescription,
		Summary: "### ❌ tiergate: 2 new errors, 1 new notice\n\n0 existing, 0 resolved · 1 cluster, 4 Kustomizations, 9 objects · `" +
			h.fetch.base.String() + "` → `" + h.fetch.head.String() + "`",
		Annotations: []forge.Annotation{
			{Path: demoFile, StartLine: 2, EndLine: 2, Level: "failure", Title: "missing-depends-on"},
			{Path: demoFile, StartLine: 2, EndLine: 2, Level: "failure", Title: "prune-transient"},
			{Path: demoFile, StartLine: 2, EndLine: 2, Level: "notice", Title: "tier-move"},
		}}
	want := append(append(run[:5:5], check), run[5])
	got := shorten(calls)
	for i := range got {
		for j := range got[i].Annotations {
			got[i].Annotations[j].Message = "" // rule messages are tested in the rules package
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("forge calls (-want +got):\n%s", diff)
	}
}

func TestRestartResumes(t *testing.T) {
	h := newHarness(t)
	h.open() // no workers: the job stays stored
	if code, _ := status(h.github("pull_request", "d-1", ghPR("opened", 7, shaA, false), ghSecret)); code != http.StatusAccepted {
		t.Fatalf("got %d, want 202", code)
	}
	h.close()
	if n := len(h.fc.snapshot()); n != 0 {
		t.Fatalf("%d forge calls before the restart", n)
	}

	h.open()
	h.start()
	calls := h.waitFor("final status", finalStatus(shaA))
	if diff := cmp.Diff(reviewCalls(shaA), shorten(calls)); diff != "" {
		t.Fatalf("forge calls (-want +got):\n%s", diff)
	}
	h.waitStoreEmpty()
	if code, s := status(h.github("pull_request", "d-1", ghPR("opened", 7, shaA, false), ghSecret)); code != http.StatusOK || s != "duplicate" {
		t.Fatalf("redelivery after restart: %d %q, want 200 duplicate", code, s)
	}
}

func TestShutdownKeepsRunningJob(t *testing.T) {
	h := newHarness(t)
	h.fetch.hold[shaA] = true
	h.start()
	h.github("pull_request", "d-1", ghPR("opened", 7, shaA, false), ghSecret)
	<-h.fetch.started
	h.stop()
	h.stop = nil
	jobs := h.storedJobs()
	if len(jobs) != 1 || jobs[0].HeadSHA != shaA || jobs[0].Attempt != 0 {
		t.Fatalf("stored jobs %+v, want the interrupted one with attempt 0", jobs)
	}
	want := []call{{Method: "PullRequest"}, {Method: "SetStatus", SHA: shaA, State: forge.StatePending, Text: pendingDescription}}
	if diff := cmp.Diff(want, h.fc.snapshot()); diff != "" {
		t.Fatalf("forge calls (-want +got):\n%s", diff)
	}
	h.close()

	h.fetch.hold[shaA] = false
	h.open()
	h.start()
	h.waitFor("final status", finalStatus(shaA))
	h.waitStoreEmpty()
}

func TestRunErrors(t *testing.T) {
	t.Run("forge error", func(t *testing.T) {
		h := newHarness(t)
		h.fc.errs["UpsertSummary"] = errors.New("POST https://x-access-token:s3cret@api.github.example/repos/acme/fleet/issues/7/comments: 422\nValidation Failed")
		h.start()
		h.github("pull_request", "d-1", ghPR("opened", 7, shaA, false), ghSecret)
		calls := h.waitFor("final status", finalStatus(shaA))
		h.waitStoreEmpty()
		want := []call{
			{Method: "PullRequest"},
			{Method: "SetStatus", SHA: shaA, State: forge.StatePending, Text: pendingDescription},
			{Method: "UpsertSummary", Text: format.Marker},
			{Method: "SetStatus", SHA: shaA, State: forge.StateError,
				Text: "publish summary comment: POST /repos/acme/fleet/issues/7/comments: 422 Validation Failed"},
		}
		if diff := cmp.Diff(want, calls); diff != "" {
			t.Fatalf("forge calls (-want +got):\n%s", diff)
		}
		if m := h.metrics(); !strings.Contains(m, `tiergate_reviews_total{result="error"} 1`) {
			t.Errorf("error run not counted")
		}
	})
	t.Run("timeout", func(t *testing.T) {
		h := newHarness(t)
		h.opts.ReviewTimeout = 50e6 // 50ms
		h.fetch.hold[shaA] = true
		h.start()
		h.github("pull_request", "d-1", ghPR("opened", 7, shaA, false), ghSecret)
		calls := h.waitFor("final status", finalStatus(shaA))
		h.waitStoreEmpty()
		want := []call{
			{Method: "PullRequest"},
			{Method: "SetStatus", SHA: shaA, State: forge.StatePending, Text: pendingDescription},
			{Method: "SetStatus", SHA: shaA, State: forge.StateError, Text: "review timed out after 50ms"},
		}
		if diff := cmp.Diff(want, calls); diff != "" {
			t.Fatalf("forge calls (-want +got):\n%s", diff)
		}
	})
	t.Run("final status cannot be published", func(t *testing.T) {
		h := newHarness(t)
		h.fc.errs["SetStatus"] = errors.New("503 Service Unavailable")
		h.start()
		h.github("pull_request", "d-1", ghPR("opened", 7, shaA, false), ghSecret)
		// Each of maxAttempts runs reads the PR, tries pending, then error; then the job is
		// given up.
		h.waitFor("all attempts", func(c []call) bool { return len(c) == 3*maxAttempts })
		h.waitStoreEmpty()
		if n := len(h.fc.snapshot()); n != 3*maxAttempts {
			t.Fatalf("%d calls, want %d:\n%s", n, 3*maxAttempts, dump(h.fc.snapshot()))
		}
		// One job given up: counted once, not once per attempt.
		m := h.metrics()
		for _, want := range []string{`tiergate_reviews_total{result="error"} 1` + "\n", "tiergate_review_duration_seconds_count 1\n"} {
			if !strings.Contains(m, want) {
				t.Errorf("metrics lack %q:\n%s", want, m)
			}
		}
	})
}

func TestForkPRs(t *testing.T) {
	h := newHarness(t)
	h.opts.SkipForkPRs = true
	h.start()
	h.github("pull_request", "d-1", ghPR("opened", 7, shaA, true), ghSecret)
	calls := h.waitFor("final status", finalStatus(shaA))
	h.waitStoreEmpty()
	want := []call{{Method: "SetStatus", SHA: shaA, State: forge.StateSuccess, Text: "fork PRs are not reviewed"}}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Fatalf("forge calls (-want +got):\n%s", diff)
	}
}

func TestBodyTooLarge(t *testing.T) {
	h := newHarness(t)
	h.opts.MaxBodyBytes = 1024
	h.open()
	payload := mustJSON(map[string]any{"zen": strings.Repeat("x", 2048)})
	if code, _ := status(h.github("ping", "d-1", payload, ghSecret)); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("got %d, want 413", code)
	}
	if code, s := status(h.github("ping", "d-2", mustJSON(map[string]any{"zen": "ok"}), ghSecret)); code != http.StatusOK || s != "pong" {
		t.Fatalf("small body: %d %q, want 200 pong", code, s)
	}
}

func TestHealth(t *testing.T) {
	h := newHarness(t)
	h.open()
	get := func(path string) int { return h.do(http.MethodGet, path, nil, nil).Code }
	if got := get("/healthz"); got != http.StatusOK {
		t.Fatalf("healthz %d", got)
	}
	if got := get("/readyz"); got != http.StatusOK {
		t.Fatalf("readyz %d", got)
	}
	entries, _ := os.ReadDir(h.dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if d := cmp.Diff([]string{"cache", "queue.db"}, names); d != "" {
		t.Fatalf("data dir after readyz (-want +got; readyz leaves no file):\n%s", d)
	}

	readOnly(t, h.dir)
	if got := get("/readyz"); got != http.StatusServiceUnavailable {
		t.Fatalf("readyz with a read-only data dir: %d, want 503", got)
	}
	if got := get("/healthz"); got != http.StatusOK {
		t.Fatalf("healthz %d", got)
	}
	writable(t, h.dir)
	if got := get("/readyz"); got != http.StatusOK {
		t.Fatalf("readyz after repair: %d", got)
	}
	h.srv.Close()
	if got := get("/readyz"); got != http.StatusServiceUnavailable {
		t.Fatalf("readyz after Close: %d, want 503", got)
	}
	if code, _ := status(h.github("pull_request", "d-1", ghPR("opened", 7, shaA, false), ghSecret)); code != http.StatusServiceUnavailable {
		t.Fatalf("webhook after Close: %d, want 503", code)
	}
}

// readOnly makes dir refuse new files, to root as well (permission bits do not bind root,
// the immutable attribute does).
func readOnly(t *testing.T, dir string) {
	t.Helper()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(dir, "probe")
	if err := os.WriteFile(probe, nil, 0o600); err != nil {
		return
	}
	os.Remove(probe)
	if out, err := exec.Command("chattr", "+i", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot make %s read-only as this user: chattr: %v %s", dir, err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", dir).Run() })
}

func writable(t *testing.T, dir string) {
	t.Helper()
	exec.Command("chattr", "-i", dir).Run()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestIsRecheck(t *testing.T) {
	for body, want := range map[string]bool{
		"/recheck":                  true,
		"  /recheck\t":              true,
		"thanks\r\n/recheck\r\n":    true,
		"/recheck please":           false,
		"please /recheck":           false,
		"`/recheck`":                false,
		"":                          false,
		"/Recheck":                  false,
		"first line\n\n  /recheck ": true,
	} {
		if got := isRecheck(body); got != want {
			t.Errorf("isRecheck(%q) = %v, want %v", body, got, want)
		}
	}
}

func TestOneLine(t *testing.T) {
	long := strings.Repeat("é", 200)
	tests := []struct{ in, want string }{
		{"fetch https://github.com/a/b.git: 401", "fetch /a/b.git: 401"},
		{"fetch https://x-access-token:ghs_abc@github.com/a/b.git:\n  auth failed", "fetch /a/b.git: auth failed"},
		{"set status error: POST http://127.0.0.1:9100/repos/o/r/statuses/abc: 404",
			"set status error: POST /repos/o/r/statuses/abc: 404"},
		{`set status pending: Post "http://127.0.0.1:1/repos/o/r/statuses/abc": dial tcp 127.0.0.1:1: connect: connection refused`,
			`set status pending: Post "/repos/o/r/statuses/abc": dial tcp: connect: connection refused`},
		{"read PR #7: Get https://[::1]:8443?x=1: read tcp 10.0.0.1:5555->10.0.0.2:443: read: connection reset by peer",
			"read PR #7: Get /?x=1: read tcp: read: connection reset by peer"},
		{"publish summary comment: POST https://ghe.internal:8443/api/v3/repos/acme/fleet/issues/7/comments: 422 " + strings.Repeat("x", 200),
			"publish summary comment: POST /api/v3/repos/acme/fleet/issues/7/comme…" + strings.Repeat("x", 70)},
		{"set status pending: github: set status of acme/fleet@" + shaA + `: Post "https://api.github.com/repos/acme/fleet/statuses/` + shaA + `": context deadline exceeded`,
			"set status pending: github: set status of acme/fleet@aaaaaaaaaaaaaaaa…s/" + shaA + `": context deadline exceeded`},
		{long, strings.Repeat("é", 69) + "…" + strings.Repeat("é", 70)},
	}
	for _, tc := range tests {
		if got := oneLine(tc.in); got != tc.want {
			t.Errorf("oneLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestReplacePath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"open /var/lib/tg/mirrors/a.git/HEAD: denied", "open $DATA_DIR/mirrors/a.git/HEAD: denied"},
		{"/var/lib/tg", "$DATA_DIR"},
		{"mkdir /var/lib/tg: exists; stat /var/lib/tg/q.db", "mkdir $DATA_DIR: exists; stat $DATA_DIR/q.db"},
		{"open /var/lib/tgx/a and /x/var/lib/tg/b", "open /var/lib/tgx/a and /x/var/lib/tg/b"},
		{`"/var/lib/tg/a"`, `"$DATA_DIR/a"`},
	}
	for _, tc := range tests {
		if got := replacePath(tc.in, "/var/lib/tg", "$DATA_DIR"); got != tc.want {
			t.Errorf("replacePath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestErrorStatusHidesLocalDirs: a review that fails on a local file says so on the PR
// without the server's folders.
func TestErrorStatusHidesLocalDirs(t *testing.T) {
	h := newHarness(t)
	h.fetch.err = func(dataDir string) error {
		return fmt.Errorf("write %s/mirrors/x.git/objects/pack/tmp_pack_1: no space left on device; scratch %s",
			dataDir, filepath.Join(os.TempDir(), "tiergate-1"))
	}
	h.start()
	h.github("pull_request", "d-1", ghPR("opened", 7, shaA, false), ghSecret)
	calls := h.waitFor("final status", finalStatus(shaA))
	want := call{Method: "SetStatus", SHA: shaA, State: forge.StateError,
		Text: "fetch: write $DATA_DIR/mirrors/x.git/objects/pack/tmp_pack_1: no space left on device; scratch $TMPDIR/tiergate-1"}
	if diff := cmp.Diff(want, calls[len(calls)-1]); diff != "" {
		t.Fatalf("final status (-want +got):\n%s", diff)
	}
}

// pushedTwice is a harness whose PR 7 was pushed A (the demo head) then B, a commit on A;
// the forge shows the PR's head as prHead(a, b) whatever is delivered.
func pushedTwice(t *testing.T, prHead func(a, b string) string) (h *harness, a, b string) {
	t.Helper()
	h = newHarness(t)
	a, b = h.fetch.head.String(), commitOn(t, h.fetch.dir, h.fetch.head).String()
	h.fc.setPR(7, forge.PullRequest{HeadSHA: prHead(a, b), BaseSHA: shaBase})
	h.fc.pinned = true
	return h, a, b
}

func newest(_, b string) string { return b }

// TestOutOfOrderDeliveries: the PR was pushed A then B (a descendant of A), and B's
// delivery came first. A's late delivery cancels B's review while B fetches (the order is
// not known yet), so B stays pending; A's run finds B newer among the heads its job
// replaced and hands the job back to B without a status on A; B is reviewed again.
func TestOutOfOrderDeliveries(t *testing.T) {
	h, a, b := pushedTwice(t, newest)
	h.fetch.hold[b] = true
	h.start()
	h.github("pull_request", "d-2", ghPR("synchronize", 7, b, false), ghSecret)
	<-h.fetch.started
	h.fetch.hold[b] = false
	h.github("pull_request", "d-1", ghPR("synchronize", 7, a, false), ghSecret)
	calls := h.waitFor("final status of B", func(c []call) bool {
		return len(c) > 0 && c[len(c)-1].SHA == b && c[len(c)-1].State == forge.StateFailure
	})
	h.waitStoreEmpty()
	want := append([]call{
		{Method: "PullRequest"},
		{Method: "SetStatus", SHA: b, State: forge.StatePending, Text: pendingDescription},
		{Method: "PullRequest"}, // A's run: the PR's head is B, so no pending on A before the fetch
	}, reviewCalls(b)...)
	if diff := cmp.Diff(want, shorten(calls)); diff != "" {
		t.Fatalf("forge calls (-want +got):\n%s", diff)
	}
	if m := h.metrics(); !strings.Contains(m, `tiergate_reviews_total{result="superseded"} 2`) {
		t.Errorf("want both superseded runs counted:\n%s", m)
	}
}

// TestOutOfOrderWhileFetched: B's review has fetched when A's late delivery cancels it:
// A is B's ancestor, so B's job takes A's place again, B stays pending and is reviewed
// again, and A never runs.
func TestOutOfOrderWhileFetched(t *testing.T) {
	h, a, b := pushedTwice(t, newest)
	bc := &blockingSummaryClient{fakeClient: h.fc, started: make(chan struct{})}
	h.opts.Forges = stubForges{bc}
	h.start()
	h.github("pull_request", "d-2", ghPR("synchronize", 7, b, false), ghSecret)
	<-bc.started
	h.github("pull_request", "d-1", ghPR("synchronize", 7, a, false), ghSecret)
	calls := h.waitFor("final status of B", finalStatus(b))
	h.waitStoreEmpty()
	run := reviewCalls(b)
	want := append(run[:3:3], run...) // cancelled in the summary, then the whole review

	if diff := cmp.Diff(want, shorten(calls)); diff != "" {
		t.Fatalf("forge calls (-want +got):\n%s", diff)
	}
	for _, c := range calls {
		if c.SHA == a {
			t.Errorf("A got %+v, want no call", c)
		}
	}
}

// blockingSummaryClient is a fakeClient whose first UpsertSummary blocks until the run's
// context ends: a review cancelled after it fetched.
type blockingSummaryClient struct {
	*fakeClient
	once    sync.Once
	started chan struct{}
}

func (c *blockingSummaryClient) UpsertSummary(ctx context.Context, repo forge.Repo, pr int, body string) error {
	first := false
	c.once.Do(func() { first = true })
	if first {
		close(c.started)
		<-ctx.Done()
		c.fakeClient.UpsertSummary(ctx, repo, pr, body)
		return ctx.Err()
	}
	return c.fakeClient.UpsertSummary(ctx, repo, pr, body)
}

// TestLateDeliveryAfterReview: A's delivery comes after B's review is done. A gives way to
// B without a status or a review, and B is not reviewed again.
func TestLateDeliveryAfterReview(t *testing.T) {
	h, a, b := pushedTwice(t, newest)
	h.start()
	h.github("pull_request", "d-2", ghPR("synchronize", 7, b, false), ghSecret)
	h.waitFor("final status of B", finalStatus(b))
	h.waitStoreEmpty()
	h.github("pull_request", "d-1", ghPR("synchronize", 7, a, false), ghSecret)
	want := append(reviewCalls(b), call{Method: "PullRequest"})
	h.waitFor("A's run", func(c []call) bool { return len(c) >= len(want) })
	h.waitStoreEmpty()
	if diff := cmp.Diff(want, shorten(h.fc.snapshot())); diff != "" {
		t.Fatalf("forge calls (-want +got):\n%s", diff)
	}
}

// TestPRHeadNotNewer: the job's head is reviewed when the forge's PR head is not a
// descendant of it: the forge's API lags behind the push it delivered (it still shows the
// older A), or shows a commit the mirror does not have (a force push not fetched).
func TestPRHeadNotNewer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prHead func(a, b string) string
	}{
		{"API behind the push", func(a, _ string) string { return a }},
		{"unknown commit", func(_, _ string) string { return shaC }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _, b := pushedTwice(t, tc.prHead)
			h.start()
			h.github("pull_request", "d-2", ghPR("synchronize", 7, b, false), ghSecret)
			calls := h.waitFor("final status of B", finalStatus(b))
			h.waitStoreEmpty()
			if diff := cmp.Diff(reviewCalls(b), shorten(calls)); diff != "" {
				t.Fatalf("forge calls (-want +got):\n%s", diff)
			}
		})
	}
}

// blockingPendingClient is a fakeClient whose SetStatus(pending) of head blocks until the
// run's context ends, as a request still in flight when the newer push arrives.
type blockingPendingClient struct {
	*fakeClient
	head    string
	started chan struct{}
}

func (c blockingPendingClient) SetStatus(ctx context.Context, repo forge.Repo, sha string, state forge.State, desc string) error {
	if sha == c.head && state == forge.StatePending {
		close(c.started)
		<-ctx.Done()
		c.fakeClient.SetStatus(ctx, repo, sha, state, desc)
		return ctx.Err()
	}
	return c.fakeClient.SetStatus(ctx, repo, sha, state, desc)
}

// TestSupersededWhilePendingInFlight: a run superseded while its pending status request is
// in flight still sets its head to error, so the head is not left pending.
func TestSupersededWhilePendingInFlight(t *testing.T) {
	h := newHarness(t)
	bc := blockingPendingClient{fakeClient: h.fc, head: shaA, started: make(chan struct{})}
	h.opts.Forges = stubForges{bc}
	h.start()
	h.github("pull_request", "d-1", ghPR("opened", 7, shaA, false), ghSecret)
	<-bc.started
	h.github("pull_request", "d-2", ghPR("synchronize", 7, shaB, false), ghSecret)
	h.waitFor("final status of B", finalStatus(shaB))
	calls := h.waitFor("final status of A", finalStatus(shaA))
	h.waitStoreEmpty()
	var gotA []call
	for _, c := range calls {
		if c.Method == "SetStatus" && c.SHA == shaA {
			gotA = append(gotA, c)
		}
	}
	want := []call{
		{Method: "SetStatus", SHA: shaA, State: forge.StatePending, Text: pendingDescription},
		{Method: "SetStatus", SHA: shaA, State: forge.StateError, Text: "superseded by bbbbbbb"},
	}
	if diff := cmp.Diff(want, gotA); diff != "" {
		t.Fatalf("statuses of A (-want +got):\n%s", diff)
	}
	if len(h.fetch.fetched()) != 1 {
		t.Fatalf("fetches %d, want 1 (B only)", len(h.fetch.fetched()))
	}
}

// TestPayloadWithoutRepository: a signed review delivery without its repository is refused
// with 400 and nothing is stored.
func TestPayloadWithoutRepository(t *testing.T) {
	h := newHarness(t)
	h.open()
	var p map[string]any
	if err := json.Unmarshal(ghPR("opened", 6, shaA, false), &p); err != nil {
		t.Fatal(err)
	}
	delete(p, "repository")
	code, msg := status(h.github("pull_request", "d-1", mustJSON(p), ghSecret))
	if want := "GitHub pull_request delivery d-1: incomplete payload: repository owner is missing"; code != http.StatusBadRequest || msg != want {
		t.Fatalf("%d %q, want 400 %q", code, msg, want)
	}
	if jobs := h.storedJobs(); len(jobs) != 0 {
		t.Fatalf("stored jobs %+v, want none", jobs)
	}
}

// TestDataDirInUse: a second server on a data directory in use says so, within seconds.
func TestDataDirInUse(t *testing.T) {
	h := newHarness(t)
	h.open()
	opts := h.opts
	opts.DataDir = h.dir
	start := time.Now()
	srv, err := New(opts)
	if err == nil {
		srv.Close()
		t.Fatal("second server opened the queue")
	}
	want := "data directory " + h.dir + " is in use by another tiergate process (queue.db is locked)"
	if err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %s", d)
	}
}

// TestNewestHead: ancestry first; the forge's head wins unless the mirror lacks it or it
// is an ancestor of the newest delivered head (its API lagging); among unrelated heads (a
// force push) it wins whether or not it was delivered.
func TestNewestHead(t *testing.T) {
	h := newHarness(t)
	a := h.fetch.head
	b := commitOn(t, h.fetch.dir, a)
	x := commitOn(t, h.fetch.dir, h.fetch.base) // a force push: unrelated to a and b
	repo, err := gitrepo.Open(h.fetch.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	unknown := plumbing.NewHash(shaC)
	for _, tc := range []struct {
		name         string
		head, prHead plumbing.Hash
		replaced     []plumbing.Hash
		want         plumbing.Hash
	}{
		{"no forge head", b, plumbing.ZeroHash, nil, b},
		{"forge head is a descendant", a, b, nil, b},
		{"forge head is an ancestor: the API lags", b, a, nil, b},
		{"forge head not in the mirror", b, unknown, nil, b},
		{"forge head unrelated, not delivered", b, x, nil, x},
		{"forge head unrelated, delivered", b, x, []plumbing.Hash{x}, x},
		{"replaced head is a descendant", a, plumbing.ZeroHash, []plumbing.Hash{b}, b},
		{"replaced descendant, forge head unrelated", a, x, []plumbing.Hash{b}, x},
		{"replaced unrelated head, no forge head: the job's own", b, plumbing.ZeroHash, []plumbing.Hash{x}, b},
	} {
		var replaced []replacedHead
		for _, r := range tc.replaced {
			replaced = append(replaced, replacedHead{SHA: r.String()})
		}
		if got := newestHead(repo, tc.head, tc.prHead, replaced); got != tc.want {
			t.Errorf("%s: newestHead = %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestRecheckWhileLoginUnknown: while the forge fails to tell the bot's login, the bot's own
// /recheck (a User with write access) is accepted but never run: no forge call at all. Once
// the forge answers, the next one learns the login and is ignored. With Options.BotLogins
// the forge is not asked and the comment is ignored at intake.
func TestRecheckWhileLoginUnknown(t *testing.T) {
	t.Run("learnt from the forge", func(t *testing.T) {
		h := newHarness(t)
		h.fc.canWrite = true
		h.fc.mu.Lock()
		h.fc.errs["Login"] = errors.New("503 Service Unavailable")
		h.fc.mu.Unlock()
		h.start()
		if code, s := status(h.github("issue_comment", "c-1", ghComment(7, 99, fakeLogin, "User", "/recheck"), ghSecret)); code != http.StatusAccepted || s != "queued" {
			t.Fatalf("got %d %q, want 202 queued", code, s)
		}
		h.waitStoreEmpty()
		h.fc.mu.Lock()
		delete(h.fc.errs, "Login")
		h.fc.mu.Unlock()
		if code, s := status(h.github("issue_comment", "c-2", ghComment(7, 100, fakeLogin, "User", "/recheck"), ghSecret)); code != http.StatusAccepted || s != "queued" {
			t.Fatalf("got %d %q, want 202 queued", code, s)
		}
		h.waitStoreEmpty()
		if code, s := status(h.github("issue_comment", "c-3", ghComment(7, 101, fakeLogin, "User", "/recheck"), ghSecret)); code != http.StatusAccepted || s != "ignored" {
			t.Fatalf("got %d %q, want 202 ignored once the login is known", code, s)
		}
		if calls := h.fc.snapshot(); len(calls) != 0 {
			t.Fatalf("forge calls %+v, want none", calls)
		}
	})
	t.Run("BotLogins", func(t *testing.T) {
		h := newHarness(t)
		h.opts.BotLogins = map[forge.Kind]string{forge.GitHub: fakeLogin}
		h.fc.errs["Login"] = errors.New("503 Service Unavailable")
		h.start()
		if code, s := status(h.github("issue_comment", "c-1", ghComment(7, 99, fakeLogin, "User", "/recheck"), ghSecret)); code != http.StatusAccepted || s != "ignored" {
			t.Fatalf("got %d %q, want 202 ignored", code, s)
		}
	})
}

// TestPerForgeBotLogins: with GitHub and Gitea both served, Options.BotLogins names the
// bot's account on each (serve --bot-login github=…,gitea=…). Each forge's own account's
// /recheck is ignored at intake; the other forge's bot login is a stranger there, and its
// /recheck is queued.
func TestPerForgeBotLogins(t *testing.T) {
	h := newHarness(t)
	h.opts.BotLogins = map[forge.Kind]string{forge.GitHub: "gh-bot", forge.Gitea: "gt-bot"}
	h.open()
	giteaRepo := map[string]any{"id": 9, "name": "fleet", "full_name": "acme/fleet", "owner": map[string]any{"login": "acme"},
		"clone_url": "https://gitea.example/acme/fleet.git"}
	giteaComment := func(id int64, login string) []byte {
		return mustJSON(map[string]any{"action": "created", "is_pull": true, "issue": map[string]any{"number": 3},
			"comment":    map[string]any{"id": id, "body": "/recheck", "user": map[string]any{"login": login, "username": login}},
			"repository": giteaRepo})
	}
	for _, tc := range []struct {
		name string
		send func() *httptest.ResponseRecorder
		want string
	}{
		{"GitHub, its bot", func() *httptest.ResponseRecorder {
			return h.github("issue_comment", "d-1", ghComment(7, 1, "gh-bot", "User", "/recheck"), ghSecret)
		}, "ignored"},
		{"GitHub, Gitea's bot login", func() *httptest.ResponseRecorder {
			return h.github("issue_comment", "d-2", ghComment(7, 2, "gt-bot", "User", "/recheck"), ghSecret)
		}, "queued"},
		{"Gitea, its bot", func() *httptest.ResponseRecorder {
			return h.gitea("issue_comment", "g-1", giteaComment(3, "gt-bot"), giteaSecret)
		}, "ignored"},
		{"Gitea, GitHub's bot login", func() *httptest.ResponseRecorder {
			return h.gitea("issue_comment", "g-2", giteaComment(4, "gh-bot"), giteaSecret)
		}, "queued"},
	} {
		if code, s := status(tc.send()); code != http.StatusAccepted || s != tc.want {
			t.Errorf("%s: got %d %q, want 202 %q", tc.name, code, s, tc.want)
		}
	}
	var got []string
	for _, j := range h.storedJobs() {
		got = append(got, fmt.Sprintf("%s %s by %s", j.Event.Forge, j.Kind, j.Event.Comment.Author))
	}
	sort.Strings(got)
	if d := cmp.Diff([]string{"gitea recheck by gh-bot", "github recheck by gt-bot"}, got); d != "" {
		t.Errorf("stored jobs (-want +got):\n%s", d)
	}
}

// TestWriteContext: a write to the PR outlives its run's cancellation (it completes, the
// newer run starts after) and has no deadline of its own while the run goes on: one
// shorter than the forge client's attempt timeout ended a write whose answer was slow in
// error, where the client would have looked for what it made.
func TestWriteContext(t *testing.T) {
	rn := &runner{}
	ctx, cancel := context.WithCancel(context.Background())
	wctx, done := rn.writeContext(ctx)
	defer done()
	if dl, ok := wctx.Deadline(); ok {
		t.Fatalf("write context has a deadline %s while its run goes on", dl)
	}
	cancel()
	if err := wctx.Err(); err != nil {
		t.Fatalf("write context ended with its run: %v", err)
	}
	done()
	if err := wctx.Err(); !errors.Is(err, context.Canceled) {
		t.Fatalf("write context after its cancel: %v, want canceled", err)
	}
}

// TestResumeOldStorePending: B's job was stored by a version before job.Pending, replacing
// A, whose run had begun (Started) and so may have left A pending. Resumed, B's run reads A
// as pending and sets it `error "superseded by B"`; a replaced head whose run never began
// gets no status. Before, a job without the field left A pending for good.
func TestResumeOldStorePending(t *testing.T) {
	for _, tc := range []struct {
		name    string
		started bool
		want    func(a, b string) []call
	}{
		{"started", true, func(a, b string) []call { return reviewCallsSettling(b, a) }},
		{"not started", false, func(_, b string) []call { return reviewCalls(b) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, a, b := pushedTwice(t, newest)
			h.open() // no workers: the job stays stored
			if code, _ := status(h.github("pull_request", "d-2", ghPR("synchronize", 7, b, false), ghSecret)); code != http.StatusAccepted {
				t.Fatalf("B: got %d, want 202", code)
			}
			keys, _, err := h.srv.store.jobs()
			if err != nil || len(keys) != 1 {
				t.Fatalf("stored jobs %v, %v; want one", keys, err)
			}
			rewriteOld(t, h.srv.store, keys[0], replacedHead{SHA: a, Started: tc.started})
			h.close()

			h.open()
			h.start()
			calls := h.waitFor("final status of B", finalStatus(b))
			h.waitStoreEmpty()
			if diff := cmp.Diff(tc.want(a, b), shorten(calls)); diff != "" {
				t.Fatalf("forge calls (-want +got):\n%s", diff)
			}
		})
	}
}

// rewriteOld rewrites key's stored job as a version before job.Pending wrote it: no
// "pending" in it or its replaced heads, r among those.
func rewriteOld(t *testing.T, s *store, key string, r replacedHead) {
	t.Helper()
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketJobs)
		var m map[string]any
		if err := json.Unmarshal(b.Get([]byte(key)), &m); err != nil {
			return err
		}
		delete(m, "pending")
		old := map[string]any{"sha": r.SHA}
		if r.Started {
			old["started"] = true
		}
		m["replaced"] = []any{old}
		v, err := json.Marshal(m)
		if err != nil {
			return err
		}
		return b.Put([]byte(key), v)
	})
	if err != nil {
		t.Fatal(err)
	}
}
