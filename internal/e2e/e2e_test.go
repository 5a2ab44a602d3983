package e2e

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const (
	scenario    = "cdi-second-pass"
	pendingDesc = "Reviewing Flux changes…"
	// cdiCounts are the new findings of cdi-second-pass, as the summary's verdict line and
	// the final status both count them: dev and prod share each cause (one folder).
	cdiCounts      = "2 new warnings, 2 new notices"
	cdiVerdict     = "### ⚠️ tiergate: " + cdiCounts
	cdiDescription = cdiCounts + " · 2 clusters"
	profiles       = "platform-config-cdi/cdi-storageprofiles.yaml"
)

// cdiLines are the line comments of a review of cdi-second-pass: the new findings on
// changed lines, once per cause, naming the clusters that share it.
var cdiLines = []string{
	profiles + ":3 **prune-transient** (warning, clusters dev, prod): StorageProfile.cdi.kubevirt.io/longhorn-vm",
	profiles + ":13 **prune-transient** (warning, clusters dev, prod): StorageProfile.cdi.kubevirt.io/longhorn-vm-bulk",
	profiles + ":3 **tier-move** (notice, clusters dev, prod): StorageProfile.cdi.kubevirt.io/longhorn-vm",
	profiles + ":13 **tier-move** (notice, clusters dev, prod): StorageProfile.cdi.kubevirt.io/longhorn-vm-bulk",
}

// reviewRun is the sequence of one review of sha: the PR read, pending, the summary (created, or edited
// when summaryID is set), the changed files, the line comments, the check run (GitHub App
// only) and the final status.
func (e *env) reviewRun(sha string, summaryID int64, exp expectation) []call {
	summary := e.createSummary(cdiVerdict)
	if summaryID != 0 {
		summary = e.editSummary(summaryID, cdiVerdict)
	}
	run := []call{
		e.getPR(), // is sha still the PR's head?
		e.status(sha, "pending", pendingDesc),
		e.listComments(),
		summary,
		e.changedFiles(),
		e.review(sha, cdiLines),
	}
	if e.fl.app {
		run = append(run, e.checkRun(sha, exp)...)
	}
	return append(run, e.status(sha, exp.finalState(), cdiDescription))
}

// reviewRerun is reviewRun on a head whose summary and line comments were already posted:
// the server edits no summary to the same text and posts no second, identical review.
func (e *env) reviewRerun(sha string, summaryID int64, exp expectation) []call {
	var out []call
	posted := e.review(sha, cdiLines)
	for _, c := range withoutSummaryEdit(e.reviewRun(sha, summaryID, exp)) {
		if !reflect.DeepEqual(c, posted) {
			out = append(out, c)
		}
	}
	return out
}

// withoutSummaryEdit is run without its edit of the summary: a run of a head whose summary
// is on the PR already (its head marker, forge.HeadMarker, makes the body the same) edits
// nothing.
func withoutSummaryEdit(run []call) []call {
	var out []call
	for _, c := range run {
		if !(strings.HasPrefix(c.Op, "PATCH ") && strings.HasPrefix(c.Detail, "summary: ")) {
			out = append(out, c)
		}
	}
	return out
}

// resumedRun is reviewRun of a job resumed after its run was interrupted before the line
// comments were recorded: the head's status is read first, and the forge's reviews before
// the line comments are posted.
func (e *env) resumedRun(sha string, summaryID int64, exp expectation) []call {
	var out []call
	out = append(out, e.headStatuses(sha))
	for _, c := range e.reviewRun(sha, summaryID, exp) {
		if c.Op == e.review(sha, nil).Op {
			out = append(out, call{Op: "GET " + e.repoPath() + "/pulls/1/reviews"})
		}
		out = append(out, c)
	}
	return out
}

// cdiAnnotations are the check run's annotations of a review of cdi-second-pass: the new
// findings, once per text.
var cdiAnnotations = []string{
	profiles + ":3-3 warning **prune-transient**: StorageProfile.cdi.kubevirt.io/longhorn-vm",
	profiles + ":13-13 warning **prune-transient**: StorageProfile.cdi.kubevirt.io/longhorn-vm-bulk",
	profiles + ":3-3 notice **tier-move**: StorageProfile.cdi.kubevirt.io/longhorn-vm",
	profiles + ":13-13 notice **tier-move**: StorageProfile.cdi.kubevirt.io/longhorn-vm-bulk",
}

// TestPullRequestLifecycle follows PR #1 through one server on each forge: deliveries with
// bad signatures are refused without a forge call; /recheck by a reader is answered and runs
// nothing; the opened delivery, sent twice with one delivery id, runs one review; the bot's own
// summary comment runs nothing; a push edits the summary instead of adding one; /recheck by a
// writer runs the review again.
func TestPullRequestLifecycle(t *testing.T) {
	eachForge(t, flavours, func(t *testing.T, e *env, exp expectation) {
		start := time.Now()
		in := e.start(true)
		e.waitLog(`"msg":"the bot's accounts"`, 1) // a /recheck before it is put back
		head, head2 := e.repo.head, e.repo.head2

		// Bad signatures: 401, nothing queued, no forge call.
		opened := e.prDelivery(head, "")
		wrongSecret, unsigned, tampered := opened, opened, opened
		wrongSecret.secret = "not-the-secret"
		unsigned.secret = ""
		tampered.body = []byte(strings.Replace(string(opened.body), `"number":1`, `"number":2`, 1))
		for name, d := range map[string]delivery{"wrong secret": wrongSecret, "unsigned": unsigned} {
			code, body := in.send(d)
			expectStatus(t, name, code, body, http.StatusUnauthorized, "signature")
		}
		code, body := in.sendSignedAs(tampered, opened)
		expectStatus(t, "tampered body", code, body, http.StatusUnauthorized, "signature")
		if calls := e.publishing(e.fake.Calls()); len(calls) != 0 { // the bot's login was read at start
			t.Fatalf("refused deliveries made %d forge calls: %+v", len(calls), calls)
		}

		// /recheck by a reader: a reply, no run. (It comes first: a /recheck that arrives
		// while a review's job is stored joins that job, see TestRecheckByReaderDuringReview.)
		id := e.fake.AddComment(1, reader, "/recheck")
		code, body = in.send(e.commentDelivery(id, reader, "/recheck"))
		expectStatus(t, "reader /recheck", code, body, http.StatusAccepted, `"queued"`)
		refusal := e.reply(id, "@"+reader+" only users with write access can /recheck")
		calls := e.waitCalls("reply to the reader", has(refusal))
		e.assertCalls("reader /recheck", calls, []call{e.permission(reader), refusal})
		if e.fl.app {
			e.assertAppAuth(calls) // the first call of the installation gets its token
		}

		// Opened, delivered twice: one review.
		e.fake.ResetCalls()
		code, body = in.send(opened)
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		code, body = in.send(opened)
		expectStatus(t, "opened again (same delivery id)", code, body, http.StatusOK, `"duplicate"`)
		calls = e.waitCalls("final status of head", e.finalStatus(head))
		e.assertCalls("opened", calls, e.reviewRun(head, 0, exp))
		summary := e.summary()
		checkSummary(t, summary.Body, exp)
		checkLineComments(t, e.reviewLines(calls, head), exp)
		e.waitRuns(in, exp.finalState(), 1)

		// The forge tells the server about its own summary comment: nothing runs.
		e.fake.ResetCalls()
		code, body = in.send(e.commentDelivery(summary.ID, e.fl.botLogin, summary.Body))
		expectStatus(t, "the bot's own comment", code, body, http.StatusAccepted, `"ignored"`)

		// A push: the summary is edited in place.
		e.pushHead2()
		code, body = in.send(e.prDelivery(head2, head))
		expectStatus(t, "synchronize", code, body, http.StatusAccepted, `"queued"`)
		calls = e.waitCalls("final status of head2", e.finalStatus(head2))
		e.assertCalls("synchronize", calls, e.reviewRun(head2, summary.ID, exp))
		if got := e.summary(); got.ID != summary.ID {
			t.Errorf("summary comment %d after the push, want %d (edited)", got.ID, summary.ID)
		} else {
			checkSummary(t, got.Body, exp)
		}
		e.waitRuns(in, exp.finalState(), 2)

		// /recheck by a writer: +1, the PR's current head is read and reviewed again.
		e.fake.ResetCalls()
		id = e.fake.AddComment(1, writer, "/recheck")
		code, body = in.send(e.commentDelivery(id, writer, "/recheck"))
		expectStatus(t, "writer /recheck", code, body, http.StatusAccepted, `"queued"`)
		calls = e.waitCalls("final status of the recheck", e.finalStatus(head2))
		e.assertCalls("writer /recheck", calls, append([]call{e.permission(writer), e.reaction(id, "+1"), e.getPR()},
			e.reviewRerun(head2, summary.ID, exp)...))
		e.waitRuns(in, exp.finalState(), 3)

		// The service endpoints, and the three reviews counted.
		for _, path := range []string{"/healthz", "/readyz"} {
			if code, body := in.get(path); code != http.StatusOK {
				t.Errorf("GET %s: %d %s", path, code, body)
			}
		}
		e.waitMetric(in, "tiergate_queue_depth", 0)
		if n := e.git.refusedRequests(); n != 0 {
			t.Errorf("the git server refused %d requests", n)
		}
		t.Logf("%s: %s", e.fl.name, time.Since(start).Round(time.Millisecond))
	})
}

// TestRestart kills the server with a job queued, or with its review running, and starts a
// new one on the same data directory: the job runs to its final status.
func TestRestart(t *testing.T) {
	// Both clients; the App's installation must come back from the stored job.
	eachForge(t, []flavour{githubApp, gitea, forgejo}, func(t *testing.T, e *env, exp expectation) {
		start := time.Now()
		head := e.repo.head

		// Queued: the first process accepts the delivery and stops before a worker takes it.
		first := e.start(false)
		opened := e.prDelivery(head, "")
		code, body := first.send(opened)
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		e.waitMetric(first, "tiergate_queue_depth", 1)
		first.stop()
		if calls := e.fake.Calls(); len(calls) != 0 {
			t.Fatalf("a server without workers made %d forge calls: %+v", len(calls), calls)
		}
		second := e.start(true)
		calls := e.waitCalls("final status after the restart", e.finalStatus(head))
		e.assertCalls("queued job after a restart", calls, e.reviewRun(head, 0, exp))
		if e.fl.app {
			e.assertAppAuth(calls) // a new process, a new installation token
		}
		summary := e.summary()
		e.waitRuns(second, exp.finalState(), 1)
		code, body = second.send(opened) // the delivery ids outlive the process
		expectStatus(t, "opened redelivered after the restart", code, body, http.StatusOK, `"duplicate"`)
		second.stop()

		// Running: the process stops while the review of a writer's /recheck fetches (the
		// head has its final status, so only a /recheck reviews it again); its head stays
		// pending until the next process reviews it again.
		e.fake.ResetCalls()
		held := e.git.holdFetch()
		learnt := strings.Count(e.log.String(), `"msg":"the bot's accounts"`)
		third := e.start(true)
		e.waitLog(`"msg":"the bot's accounts"`, learnt+1) // a /recheck before it is put back
		id := e.fake.AddComment(1, writer, "/recheck")
		code, body = third.send(e.commentDelivery(id, writer, "/recheck"))
		expectStatus(t, "writer /recheck", code, body, http.StatusAccepted, `"queued"`)
		select {
		case <-held.Arrived:
		case <-time.After(waitLimit):
			t.Fatal("the review never fetched")
		}
		third.stop()
		close(held.Release)
		e.assertCalls("review interrupted by shutdown", e.fake.Calls(), []call{e.permission(writer), e.reaction(id, "+1"), e.getPR(),
			e.getPR(), e.status(head, "pending", pendingDesc)})
		e.fake.ResetCalls()
		e.start(true)
		calls = e.waitCalls("final status after the second restart", e.finalStatus(head))
		// Resumed: the head's status is read first; the line comments are in the ledger; the
		// App's check run of the earlier review is found, not created again.
		var want []call
		for _, c := range append([]call{e.headStatuses(head)}, e.reviewRerun(head, summary.ID, exp)...) {
			switch {
			case c.Op == "POST "+e.repoPath()+"/check-runs":
				want = append(want, call{Op: "GET " + e.repoPath() + "/commits/" + head + "/check-runs"})
			case strings.HasPrefix(c.Op, "PATCH "+e.repoPath()+"/check-runs/"):
			default:
				want = append(want, c)
			}
		}
		e.assertCalls("interrupted job after a restart", calls, want)
		if n := e.git.refusedRequests(); n != 0 {
			t.Errorf("the git server refused %d requests", n)
		}
		t.Logf("%s: %s", e.fl.name, time.Since(start).Round(time.Millisecond))
	})
}

// TestSupersede pushes while the review of the previous head fetches: that review is
// cancelled, the newest head is reviewed and its run marks the previous head superseded.
func TestSupersede(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, exp expectation) {
		head, head2 := e.repo.head, e.repo.head2
		held := e.git.holdFetch()
		defer close(held.Release)
		in := e.start(true)
		code, body := in.send(e.prDelivery(head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		select {
		case <-held.Arrived:
		case <-time.After(waitLimit):
			t.Fatal("the review never fetched")
		}
		e.pushHead2()
		code, body = in.send(e.prDelivery(head2, head))
		expectStatus(t, "synchronize", code, body, http.StatusAccepted, `"queued"`)
		calls := e.waitCalls("final status of head2", e.finalStatus(head2))
		// head's run is cancelled before it fetched, so which head is newer is not known
		// yet: head2's run settles head once it has fetched.
		run := e.reviewRun(head2, 0, exp)
		e.assertCalls("superseded", calls, append(append([]call{
			e.getPR(), // head is still the PR's head: the push comes while it fetches
			e.status(head, "pending", pendingDesc),
		}, run[:2]...), append([]call{e.status(head, "error", "superseded by "+head2[:7])}, run[2:]...)...))
		e.waitMetric(in, `tiergate_reviews_total{result="superseded"}`, 1)
	})
}

// TestForgeErrors: transient forge errors (429 with Retry-After, 502) are retried within the
// run; a permanent one (422) ends the run with a one-line status error, and the job is done:
// a writer's /recheck then runs the review again.
func TestForgeErrors(t *testing.T) {
	eachForge(t, []flavour{github, gitea}, func(t *testing.T, e *env, exp expectation) {
		head := e.repo.head
		in := e.start(true)
		api := e.fl.apiBase + e.repoPath()

		e.fake.FailNext(api+"/statuses/"+head, http.StatusTooManyRequests, map[string]string{"Retry-After": "1"})
		e.fake.FailNext(api+"/issues/1/comments", http.StatusBadGateway, nil)
		e.fake.FailNext(api+"/pulls/1/reviews", http.StatusUnprocessableEntity, nil)
		code, body := in.send(e.prDelivery(head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		calls := e.waitCalls("final status of head", e.finalStatus(head))
		got := e.publishing(calls)
		const prefix = "error [tiergate] post line comments: "
		if n := len(got); n > 0 {
			last := &got[n-1]
			t.Logf("status after the refused review: %s", last.Detail)
			if !strings.HasPrefix(last.Detail, prefix) || strings.Contains(last.Detail, "\n") {
				t.Errorf("final status %q, want one line starting %q", last.Detail, prefix)
			}
			last.Detail = prefix + "…"
		}
		run := e.reviewRun(head, 0, exp)
		// PR read, pending twice (429), list comments twice (502), summary, changed
		// files, review (422), error.
		want := []call{run[0], run[1], run[1], run[2], run[2], run[3], run[4], run[5],
			e.status(head, "error", strings.TrimPrefix(prefix, "error [tiergate] ")+"…")}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("forge calls (-want +got):\n%s", d)
		}
		e.waitRuns(in, "error", 1)
		for _, status := range []string{"429", "502", "422"} {
			e.waitMetric(in, `tiergate_forge_requests_total{forge="`+string(e.fl.kind)+`",status="`+status+`"}`, 1)
		}

		e.fake.ResetCalls()
		id := e.fake.AddComment(1, writer, "/recheck")
		code, body = in.send(e.commentDelivery(id, writer, "/recheck"))
		expectStatus(t, "writer /recheck", code, body, http.StatusAccepted, `"queued"`)
		calls = e.waitCalls("final status of the recheck", e.finalStatus(head))
		// The summary of head was created before the 422: it is not edited to the same text.
		e.assertCalls("recheck after an error", calls, append([]call{e.permission(writer), e.reaction(id, "+1"), e.getPR()},
			withoutSummaryEdit(e.reviewRun(head, e.summary().ID, exp))...))
	})
}

// TestReviewTimeout: a review that outlives --review-timeout ends with status error.
func TestReviewTimeout(t *testing.T) {
	eachForge(t, []flavour{github, gitea}, func(t *testing.T, e *env, _ expectation) {
		e.reviewTimeout = 2 * time.Second
		head := e.repo.head
		held := e.git.holdFetch()
		defer close(held.Release)
		in := e.start(true)
		code, body := in.send(e.prDelivery(head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		calls := e.waitCalls("final status of head", e.finalStatus(head))
		e.assertCalls("timed out", calls, []call{
			e.getPR(),
			e.status(head, "pending", pendingDesc),
			e.status(head, "error", "review timed out after 2s"),
		})
		e.waitMetric(in, `tiergate_reviews_total{result="error"}`, 1)
	})
}

// TestRecheckByReaderDuringReview: a reader's /recheck that arrives while a review runs is
// answered at once, beside that review, and runs nothing (DESIGN.md: "others get a reaction
// or reply, no run"): the review publishes once. A writer's /recheck afterwards runs one
// review.
func TestRecheckByReaderDuringReview(t *testing.T) {
	eachForge(t, []flavour{github, gitea}, func(t *testing.T, e *env, exp expectation) {
		head := e.repo.head
		held := e.git.holdFetch()
		in := e.start(true)
		code, body := in.send(e.prDelivery(head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		select {
		case <-held.Arrived:
		case <-time.After(waitLimit):
			t.Fatal("the review never fetched")
		}
		readerID := e.fake.AddComment(1, reader, "/recheck")
		code, body = in.send(e.commentDelivery(readerID, reader, "/recheck"))
		expectStatus(t, "reader /recheck", code, body, http.StatusAccepted, `"queued"`)
		refusal := e.reply(readerID, "@"+reader+" only users with write access can /recheck")
		e.waitCalls("reply to the reader while the review fetches", has(refusal))
		close(held.Release)
		e.waitCalls("final status of head", e.finalStatus(head))
		e.waitRuns(in, exp.finalState(), 1)

		writerID := e.fake.AddComment(1, writer, "/recheck")
		code, body = in.send(e.commentDelivery(writerID, writer, "/recheck"))
		expectStatus(t, "writer /recheck", code, body, http.StatusAccepted, `"queued"`)
		reacted := e.reaction(writerID, "+1")
		calls := e.waitCalls("final status of the writer's recheck", func(calls []call) bool {
			for i, c := range calls {
				if c.Op == reacted.Op {
					return e.finalStatus(head)(calls[i:])
				}
			}
			return false
		})
		e.waitRuns(in, exp.finalState(), 2)
		summary := e.summary()
		run := e.reviewRun(head, 0, exp)
		want := append([]call{run[0], run[1], e.permission(reader), refusal}, run[2:]...)
		want = append(want, e.permission(writer), reacted, e.getPR())
		want = append(want, e.reviewRerun(head, summary.ID, exp)...)
		e.assertCalls("reader's /recheck during a review, then a writer's", calls, want)
		e.waitMetric(in, "tiergate_queue_depth", 0)
		e.assertCalls("no further run", e.fake.Calls(), want)
	})
}
