package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
)

// faultAttemptTimeout is the forge clients' attempt timeout in the fault tests: a stalled
// request costs this long, not the review's deadline.
const faultAttemptTimeout = 2 * time.Second

// TestForgeFaults injects, in one review, GitHub's secondary rate limit (403 with
// Retry-After), its primary rate limit (403, X-RateLimit-Remaining 0 and a reset time), a
// request the forge never answers and a 500: each is retried within the run, which ends in
// the review's own final status. Then faults that outlast the retries (500s, stalls) end
// their run in status error with the reason (on the next push, and on a /recheck), and the
// next /recheck is reviewed as usual: the queue survives.
func TestForgeFaults(t *testing.T) {
	eachForge(t, []flavour{github, gitea}, func(t *testing.T, e *env, _ expectation) {
		e.retry = forge.RetryOptions{AttemptTimeout: faultAttemptTimeout, MaxRetries: 2}
		exp := loadExpectation(t, e.scenario)
		head, head2 := e.repo.head, e.repo.head2
		in := e.start(true)
		api := e.fl.apiBase + e.repoPath()

		// Retried faults: the review's own result.
		reset := fmt.Sprint(time.Now().Add(2 * time.Second).Unix())
		e.fake.FailNextMessage(api+"/statuses/"+head, http.StatusForbidden, map[string]string{"Retry-After": "1"},
			"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.")
		e.fake.FailNextMessage(api+"/issues/1/comments", http.StatusForbidden,
			map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}, "API rate limit exceeded")
		e.fake.StallNext(api + e.fl.files)
		e.fake.FailNext(api+"/pulls/1/reviews", http.StatusInternalServerError, nil)
		code, body := in.send(e.prDelivery(head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		calls := e.waitCalls("final status of head", e.finalStatus(head))
		run := e.reviewRun(head, 0, exp)
		// PR read, pending, list comments, create summary, changed files, review, final
		want := []call{run[0], run[1], run[1], run[2], run[2], run[3], run[4], run[4], run[5], run[5], run[6]}
		e.assertCalls("retried faults", calls, want)
		e.waitRuns(in, exp.finalState(), 1)
		for _, status := range []string{"403", "500", "error"} {
			n := 1.0
			if status == "403" {
				n = 2
			}
			e.waitMetric(in, `tiergate_forge_requests_total{forge="`+string(e.fl.kind)+`",status="`+status+`"}`, n)
		}
		summaryID := e.summary().ID

		// A 500 that outlasts the retries (1 + MaxRetries attempts) on the summary edit of
		// the next push: status error. (head has its final status: a delivery of it again
		// runs nothing.)
		e.fake.ResetCalls()
		for range 3 {
			e.fake.FailNext(api+"/issues/comments/"+fmt.Sprint(summaryID), http.StatusInternalServerError, nil)
		}
		e.pushHead2()
		code, body = in.send(e.prDelivery(head2, head))
		expectStatus(t, "synchronize", code, body, http.StatusAccepted, `"queued"`)
		calls = e.waitCalls("final status after 500s", e.finalStatus(head2))
		run2 := e.reviewRun(head2, summaryID, exp)
		edit := e.editSummary(summaryID, cdiVerdict)
		got := e.publishing(calls)
		wantPrefix := "error [tiergate] publish summary comment: "
		reason := "500 injected fault" // GitHub's client names the status, the Gitea SDK the message
		if e.fl.kind == forge.Gitea {
			reason = ": injected fault"
		}
		checkErrorStatus(t, got, wantPrefix, reason)
		if d := cmp.Diff([]call{run2[0], run2[1], run2[2], edit, edit, edit}, got[:len(got)-1]); d != "" {
			t.Errorf("500s: calls before the final status (-want +got):\n%s", d)
		}
		e.waitRuns(in, "error", 1)

		// A forge that stops answering, on a writer's /recheck: the pending status is tried
		// 1 + MaxRetries times, each abandoned after the attempt timeout; the run ends in error.
		e.fake.ResetCalls()
		for range 3 {
			e.fake.StallNext(api + "/statuses/" + head2)
		}
		id := e.fake.AddComment(1, writer, "/recheck")
		code, body = in.send(e.commentDelivery(id, writer, "/recheck"))
		expectStatus(t, "writer /recheck", code, body, http.StatusAccepted, `"queued"`)
		calls = e.waitCalls("final status after stalls", e.finalStatus(head2))
		got = e.publishing(calls)
		checkErrorStatus(t, got, "error [tiergate] set status pending: ", ": context deadline exceeded")
		recheck := []call{e.permission(writer), e.reaction(id, "+1"), e.getPR()}
		if d := cmp.Diff(append(recheck, run2[0], run2[1], run2[1], run2[1]), got[:len(got)-1]); d != "" {
			t.Errorf("stalls: calls before the final status (-want +got):\n%s", d)
		}
		e.waitRuns(in, "error", 2)

		// The queue survives: the next /recheck is reviewed as usual.
		e.fake.ResetCalls()
		id = e.fake.AddComment(1, writer, "/recheck")
		code, body = in.send(e.commentDelivery(id, writer, "/recheck"))
		expectStatus(t, "writer /recheck again", code, body, http.StatusAccepted, `"queued"`)
		calls = e.waitCalls("final status of head2", e.finalStatus(head2))
		e.assertCalls("after the faults", calls, append([]call{e.permission(writer), e.reaction(id, "+1"), e.getPR()}, run2...))
		e.waitMetric(in, "tiergate_queue_depth", 0)
	})
}

// checkErrorStatus checks that the last call is a one-line status error that starts with
// prefix and names reason.
func checkErrorStatus(t *testing.T, got []call, prefix, reason string) {
	t.Helper()
	if len(got) == 0 {
		t.Fatal("no calls")
	}
	last := got[len(got)-1].Detail
	t.Logf("final status: %s", last)
	if !strings.HasPrefix(last, prefix) || !strings.Contains(last, reason) || strings.Contains(last, "\n") {
		t.Errorf("final status %q, want one line starting %q naming %q", last, prefix, reason)
	}
}

// TestCloneCutMidway: the git server drops the connection half-way through the pack. A
// single cut is fetched again within the run (retried success); cuts on every attempt end
// the run in status error naming the fetch; the mirror is left usable, so the next review
// succeeds.
func TestCloneCutMidway(t *testing.T) {
	eachForge(t, []flavour{github, gitea}, func(t *testing.T, e *env, exp expectation) {
		head, head2 := e.repo.head, e.repo.head2
		in := e.start(true)

		e.git.cutFetches(1)
		code, body := in.send(e.prDelivery(head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		calls := e.waitCalls("final status of head", e.finalStatus(head))
		e.assertCalls("one cut clone", calls, e.reviewRun(head, 0, exp))
		if n := e.git.cutCount(); n != 1 {
			t.Errorf("%d answers cut, want 1", n)
		}
		e.waitRuns(in, exp.finalState(), 1)
		summaryID := e.summary().ID

		// Every attempt cut (MirrorFetcher tries three times): status error.
		e.fake.ResetCalls()
		e.pushHead2()
		e.git.cutFetches(3)
		code, body = in.send(e.prDelivery(head2, head))
		expectStatus(t, "synchronize", code, body, http.StatusAccepted, `"queued"`)
		calls = e.waitCalls("final status of head2", e.finalStatus(head2))
		got := e.publishing(calls)
		checkErrorStatus(t, got, "error [tiergate] fetch: ", "/acme/fleet.git")
		if d := cmp.Diff([]call{e.getPR(), e.status(head2, "pending", pendingDesc)}, got[:len(got)-1]); d != "" {
			t.Errorf("cut clones: calls before the final status (-want +got):\n%s", d)
		}
		if n := e.git.cutCount(); n != 4 {
			t.Errorf("%d answers cut, want 4", n)
		}
		e.waitRuns(in, "error", 1)

		// The mirror still works.
		e.fake.ResetCalls()
		code, body = in.send(e.prDelivery(head2, head))
		expectStatus(t, "synchronize again", code, body, http.StatusAccepted, `"queued"`)
		calls = e.waitCalls("final status of head2", e.finalStatus(head2))
		e.assertCalls("after the cuts", calls, e.reviewRun(head2, summaryID, exp))
	})
}
