package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

const (
	scenario    = "cdi-second-pass"
	pendingDesc = "Reviewing Flux changes…"
	// cdiCounts are the new findings of cdi-second-pass, as the summary's verdict line and
	// the final status both count them.
	cdiCounts      = "4 new warnings, 4 new notices"
	cdiVerdict     = "### ⚠️ tiergate: " + cdiCounts
	cdiDescription = cdiCounts + " · 2 clusters"
	profiles       = "platform-config-cdi/cdi-storageprofiles.yaml"
)

// cdiLines are the line comments of a review of cdi-second-pass: the new findings on
// changed lines, once per text (dev and prod say the same).
var cdiLines = []string{
	profiles + ":3 **prune-transient** (warning): StorageProfile.cdi.kubevirt.io/longhorn-vm",
	profiles + ":13 **prune-transient** (warning): StorageProfile.cdi.kubevirt.io/longhorn-vm-bulk",
	profiles + ":3 **tier-move** (notice): StorageProfile.cdi.kubevirt.io/longhorn-vm",
	profiles + ":13 **tier-move** (notice): StorageProfile.cdi.kubevirt.io/longhorn-vm-bulk",
}

// reviewRun is the sequence of one review of sha: pending, the summary (created, or edited
// when summaryID is set), the changed files, the line comments and the final status.
func (e *env) reviewRun(sha string, summaryID int64, exp expectation) []call {
	summary := e.createSummary(cdiVerdict)
	if summaryID != 0 {
		summary = e.editSummary(summaryID, cdiVerdict)
	}
	return []call{
		e.status(sha, "pending", pendingDesc),
		e.listComments(),
		summary,
		e.changedFiles(),
		e.review(sha, cdiLines),
		e.status(sha, exp.finalState(), cdiDescription),
	}
}

// assertCalls compares the publishing calls with want.
func (e *env) assertCalls(what string, calls []forgetest.Call, want []call) {
	e.t.Helper()
	if d := cmp.Diff(want, e.publishing(calls)); d != "" {
		e.t.Errorf("%s: forge calls (-want +got):\n%s", what, d)
	}
}

// summary returns the PR's only comment that starts with the marker, and checks that the
// bot wrote it.
func (e *env) summary() forgetest.Comment {
	e.t.Helper()
	var found []forgetest.Comment
	for _, c := range e.fake.Comments(1) {
		if strings.HasPrefix(c.Body, summaryMarker) {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		e.t.Fatalf("PR has %d summary comments, want 1: %+v", len(found), found)
	}
	if found[0].Author != e.fl.botLogin {
		e.t.Errorf("summary written by %q, want %q", found[0].Author, e.fl.botLogin)
	}
	return found[0]
}

func expectStatus(t *testing.T, what string, code int, body string, wantCode int, wantBody string) {
	t.Helper()
	if code != wantCode || !strings.Contains(body, wantBody) {
		t.Fatalf("%s: answered %d %s, want %d with %q", what, code, body, wantCode, wantBody)
	}
}

// TestPullRequestLifecycle follows PR #1 through the server on each forge: deliveries with
// bad signatures are refused without a forge call; the opened delivery (sent twice with one
// delivery id) runs one review; a push edits the summary instead of adding one; /recheck by
// a reader is answered and runs nothing; /recheck by a writer runs the review again.
func TestPullRequestLifecycle(t *testing.T) {
	for _, fl := range flavours {
		t.Run(fl.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			e := newEnv(t, fl, scenario)
			exp := loadExpectation(t, e.scenario)
			in := e.start(true)
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
			if calls := e.fake.Calls(); len(calls) != 0 {
				t.Fatalf("refused deliveries made %d forge calls: %+v", len(calls), calls)
			}

			// Opened, delivered twice: one review.
			code, body = in.send(opened)
			expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
			code, body = in.send(opened)
			expectStatus(t, "opened again (same delivery id)", code, body, http.StatusOK, `"duplicate"`)
			calls := e.waitCalls("final status of head", e.finalStatus(head))
			e.assertCalls("opened", calls, e.reviewRun(head, 0, exp))
			if fl.app {
				e.assertAppAuth(calls)
			}
			summary := e.summary()
			checkSummary(t, summary.Body, exp)
			checkLineComments(t, e.publishing(calls)[4].Lines, exp)

			// The forge tells the server about its own summary comment: nothing runs.
			e.fake.ResetCalls()
			code, body = in.send(e.commentDelivery(summary.ID, fl.botLogin, summary.Body))
			expectStatus(t, "the bot's own comment", code, body, http.StatusAccepted, `"ignored"`)

			// A push: the summary is edited in place.
			e.fake.ResetCalls()
			e.repo.pushHead2(t)
			e.fake.SetPR(1, head2, e.repo.base, false)
			e.fake.SetFiles(1, e.repo.head2Files...)
			code, body = in.send(e.prDelivery(head2, head))
			expectStatus(t, "synchronize", code, body, http.StatusAccepted, `"queued"`)
			calls = e.waitCalls("final status of head2", e.finalStatus(head2))
			e.assertCalls("synchronize", calls, e.reviewRun(head2, summary.ID, exp))
			if got := e.summary(); got.ID != summary.ID {
				t.Errorf("summary comment %d after the push, want %d (edited)", got.ID, summary.ID)
			} else {
				checkSummary(t, got.Body, exp)
			}

			// /recheck by a reader: a reply, no run.
			e.fake.ResetCalls()
			id := e.fake.AddComment(1, reader, "/recheck")
			code, body = in.send(e.commentDelivery(id, reader, "/recheck"))
			expectStatus(t, "reader /recheck", code, body, http.StatusAccepted, `"queued"`)
			refusal := e.reply("@" + reader + " only users with write access can /recheck")
			calls = e.waitCalls("reply to the reader", has(refusal))
			e.assertCalls("reader /recheck", calls, []call{e.permission(reader), refusal})

			// /recheck by a writer: +1, the PR's current head is read and reviewed again.
			e.fake.ResetCalls()
			id = e.fake.AddComment(1, writer, "/recheck")
			code, body = in.send(e.commentDelivery(id, writer, "/recheck"))
			expectStatus(t, "writer /recheck", code, body, http.StatusAccepted, `"queued"`)
			calls = e.waitCalls("final status of the recheck", e.finalStatus(head2))
			e.assertCalls("writer /recheck", calls, append([]call{e.permission(writer), e.reaction(id, "+1"), e.getPR()},
				e.reviewRun(head2, summary.ID, exp)...))

			// The service endpoints, and the three reviews counted.
			for _, path := range []string{"/healthz", "/readyz"} {
				if code, body := in.get(path); code != http.StatusOK {
					t.Errorf("GET %s: %d %s", path, code, body)
				}
			}
			e.waitMetric(in, `tiergate_reviews_total{result="`+exp.finalState()+`"}`, 3)
			e.waitMetric(in, "tiergate_queue_depth", 0)
			if n := e.git.refusedRequests(); n != 0 {
				t.Errorf("the git server refused %d requests", n)
			}
			t.Logf("%s: %s", fl.name, time.Since(start).Round(time.Millisecond))
		})
	}
}

// TestRestart kills the server with a job queued, or with its review running, and starts a
// new one on the same data directory: the job runs to its final status.
func TestRestart(t *testing.T) {
	for _, fl := range flavours {
		t.Run(fl.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			e := newEnv(t, fl, scenario)
			exp := loadExpectation(t, e.scenario)
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
			summary := e.summary()
			code, body = second.send(opened) // the delivery ids outlive the process
			expectStatus(t, "opened redelivered after the restart", code, body, http.StatusOK, `"duplicate"`)
			second.stop()

			// Running: the process stops while the review fetches; its head stays pending
			// until the next process reviews it again.
			e.fake.ResetCalls()
			held := e.git.holdFetch()
			third := e.start(true)
			code, body = third.send(e.prDelivery(head, ""))
			expectStatus(t, "opened (a new delivery)", code, body, http.StatusAccepted, `"queued"`)
			select {
			case <-held.arrived:
			case <-time.After(waitLimit):
				t.Fatal("the review never fetched")
			}
			third.stop()
			close(held.release)
			e.assertCalls("review interrupted by shutdown", e.fake.Calls(), []call{e.status(head, "pending", pendingDesc)})
			e.fake.ResetCalls()
			e.start(true)
			calls = e.waitCalls("final status after the second restart", e.finalStatus(head))
			e.assertCalls("interrupted job after a restart", calls, e.reviewRun(head, summary.ID, exp))
			t.Logf("%s: %s", fl.name, time.Since(start).Round(time.Millisecond))
		})
	}
}

// assertAppAuth checks that the App's installation from the delivery got a token.
func (e *env) assertAppAuth(calls []forgetest.Call) {
	e.t.Helper()
	want := fmt.Sprintf("POST /app/installations/%d/access_tokens", installationID)
	for _, c := range calls {
		if c.Method+" "+c.Path == want {
			return
		}
	}
	e.t.Errorf("no %s among the forge calls", want)
}

// sendSignedAs posts d's body with the signature of signed's body.
func (in *instance) sendSignedAs(d, signed delivery) (int, string) {
	in.e.t.Helper()
	h := in.e.headers(signed)
	req, err := http.NewRequest(http.MethodPost, in.http.URL+in.e.fl.endpoint, strings.NewReader(string(d.body)))
	if err != nil {
		in.e.t.Fatal(err)
	}
	req.Header = h
	return in.do(req)
}

// waitMetric polls /metrics until the sample name has value v.
func (e *env) waitMetric(in *instance, name string, v float64) {
	e.t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`)
	deadline := time.Now().Add(waitLimit)
	for {
		_, body := in.get("/metrics")
		m := re.FindStringSubmatch(body)
		if m != nil {
			if got, err := strconv.ParseFloat(m[1], 64); err == nil && got == v {
				return
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("metric %s: want %v, got %v", name, v, m)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSupersede pushes while the review of the previous head fetches: that review is
// cancelled and marks its head superseded, and only the newest head is reviewed.
func TestSupersede(t *testing.T) {
	t.Parallel()
	for _, fl := range []flavour{github, gitea} {
		t.Run(fl.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, fl, scenario)
			exp := loadExpectation(t, e.scenario)
			head, head2 := e.repo.head, e.repo.head2
			held := e.git.holdFetch()
			defer close(held.release)
			in := e.start(true)
			code, body := in.send(e.prDelivery(head, ""))
			expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
			select {
			case <-held.arrived:
			case <-time.After(waitLimit):
				t.Fatal("the review never fetched")
			}
			e.repo.pushHead2(t)
			e.fake.SetPR(1, head2, e.repo.base, false)
			e.fake.SetFiles(1, e.repo.head2Files...)
			code, body = in.send(e.prDelivery(head2, head))
			expectStatus(t, "synchronize", code, body, http.StatusAccepted, `"queued"`)
			calls := e.waitCalls("final status of head2", e.finalStatus(head2))
			e.assertCalls("superseded", calls, append([]call{
				e.status(head, "pending", pendingDesc),
				e.status(head, "error", "superseded by "+head2[:7]),
			}, e.reviewRun(head2, 0, exp)...))
			e.waitMetric(in, `tiergate_reviews_total{result="superseded"}`, 1)
		})
	}
}

// TestForgeErrors: transient forge errors (429 with Retry-After, 502) are retried within the
// run; a permanent one ends the run with status error, and a /recheck recovers.
func TestForgeErrors(t *testing.T) {
	t.Parallel()
	for _, fl := range []flavour{github, gitea} {
		t.Run(fl.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, fl, scenario)
			exp := loadExpectation(t, e.scenario)
			head := e.repo.head
			in := e.start(true)
			api := fl.apiBase + e.repoPath()

			// Transient: the pending status is rate limited once, the comment list fails once.
			e.fake.FailNext(api+"/statuses/"+head, http.StatusTooManyRequests, map[string]string{"Retry-After": "1"})
			e.fake.FailNext(api+"/issues/1/comments", http.StatusBadGateway, nil)
			code, body := in.send(e.prDelivery(head, ""))
			expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
			calls := e.waitCalls("final status of head", e.finalStatus(head))
			run := e.reviewRun(head, 0, exp)
			e.assertCalls("retried", calls, append([]call{run[0], run[0], run[1]}, run[1:]...))
			for _, status := range []string{"429", "502"} {
				e.waitMetric(in, `tiergate_forge_requests_total{forge="`+string(fl.kind)+`",status="`+status+`"}`, 1)
			}
			summary := e.summary()

			// Permanent: the review is refused; the run ends with status error.
			e.fake.ResetCalls()
			e.fake.FailNext(api+"/pulls/1/reviews", http.StatusUnprocessableEntity, nil)
			code, body = in.send(e.prDelivery(head, "").withID(newID()))
			expectStatus(t, "opened (redelivered with a new id)", code, body, http.StatusAccepted, `"queued"`)
			calls = e.waitCalls("final status of head", e.finalStatus(head))
			got := e.publishing(calls)
			if n := len(got); n > 0 {
				last := &got[n-1]
				t.Logf("status after the refused review: %s", last.Detail)
				prefix := "error [tiergate] post line comments: "
				if !strings.HasPrefix(last.Detail, prefix) || strings.Contains(last.Detail, "\n") {
					t.Errorf("final status %q, want one line starting %q", last.Detail, prefix)
				}
				last.Detail = prefix + "…"
			}
			run = e.reviewRun(head, summary.ID, exp)
			run[5] = e.status(head, "error", "post line comments: …")
			if d := cmp.Diff(run, got); d != "" {
				t.Errorf("refused review: forge calls (-want +got):\n%s", d)
			}

			// /recheck by a writer runs the review again, now without a fault.
			e.fake.ResetCalls()
			id := e.fake.AddComment(1, writer, "/recheck")
			code, body = in.send(e.commentDelivery(id, writer, "/recheck"))
			expectStatus(t, "writer /recheck", code, body, http.StatusAccepted, `"queued"`)
			calls = e.waitCalls("final status of the recheck", e.finalStatus(head))
			e.assertCalls("recheck after an error", calls, append([]call{e.permission(writer), e.reaction(id, "+1"), e.getPR()},
				e.reviewRun(head, summary.ID, exp)...))
		})
	}
}

// TestReviewTimeout: a review that outlives --review-timeout ends with status error.
func TestReviewTimeout(t *testing.T) {
	t.Parallel()
	for _, fl := range []flavour{github, gitea} {
		t.Run(fl.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, fl, scenario)
			e.reviewTimeout = 2 * time.Second
			head := e.repo.head
			held := e.git.holdFetch()
			defer close(held.release)
			in := e.start(true)
			code, body := in.send(e.prDelivery(head, ""))
			expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
			calls := e.waitCalls("final status of head", e.finalStatus(head))
			e.assertCalls("timed out", calls, []call{
				e.status(head, "pending", pendingDesc),
				e.status(head, "error", "review timed out after 2s"),
			})
			e.waitMetric(in, `tiergate_reviews_total{result="error"}`, 1)
		})
	}
}
