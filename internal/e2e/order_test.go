package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// prCalls are the publishing calls about PR n among calls: its PR, comments and reviews,
// and the statuses of its heads.
func (e *env) prCalls(calls []call, n int, heads []string) []call {
	var out []call
	for _, c := range calls {
		mine := strings.Contains(c.Op, fmt.Sprintf("/pulls/%d", n)) || strings.Contains(c.Op, fmt.Sprintf("/issues/%d/", n))
		for _, h := range heads {
			mine = mine || strings.HasSuffix(c.Op, "/statuses/"+h)
		}
		if mine {
			out = append(out, c)
		}
	}
	return out
}

// demoRun is the call sequence of one review of the demo scenario on PR n at sha, the
// summary created (summaryID 0) or edited, with the superseded statuses of older heads
// after pending.
func (e *env) demoRun(n int, sha string, lines []string, summaryID int64, older ...string) []call {
	pr := fmt.Sprintf("%s/pulls/%d", e.repoPath(), n)
	comments := fmt.Sprintf("%s/issues/%d/comments", e.repoPath(), n)
	files := "GET " + pr + "/files"
	if e.fl.apiBase != "" {
		files = "GET " + pr + ".diff"
	}
	run := []call{{Op: "GET " + pr}, e.status(sha, "pending", pendingDesc)}
	for _, o := range older {
		run = append(run, e.status(o, "error", "superseded by "+sha[:7]))
	}
	summary := call{Op: "POST " + comments, Detail: "summary: " + demoVerdict}
	if summaryID != 0 {
		summary = e.editSummary(summaryID, demoVerdict)
	}
	run = append(run, call{Op: "GET " + comments}, summary, call{Op: files})
	if len(lines) > 0 {
		run = append(run, call{Op: "POST " + pr + "/reviews", Detail: "COMMENT on " + sha, Lines: lines})
	}
	return append(run, e.status(sha, "failure", demoDescription))
}

// demoVerdict is the summary's verdict line of a review of the demo scenario.
const demoVerdict = "### ❌ tiergate: 2 new errors, 1 new notice"

// TestOutOfOrderWithBusyWorker: PR #1 is pushed A then B, and the forge delivers B first,
// then A, while the only worker reviews PR #2. A's delivery replaces B's job; A's run finds
// B, the PR's head, newer among the heads its job replaced, sets no status on A and hands
// the job back to B, which gets the one review.
func TestOutOfOrderWithBusyWorker(t *testing.T) {
	eachFlavour(t, []flavour{github, gitea, forgejo}, func(t *testing.T, fl flavour) {
		e, heads := newManyPREnv(t, fl, 2, 2)
		e.workers = 1
		a, b := heads[1][0], heads[1][1]
		held := e.git.holdFetch()
		in := e.start(true)
		code, body := in.send(e.prDeliveryFor(2, heads[2][1], ""))
		expectStatus(t, "PR #2 opened", code, body, http.StatusAccepted, `"queued"`)
		select {
		case <-held.Arrived:
		case <-time.After(waitLimit):
			t.Fatal("PR #2's review never fetched")
		}
		code, body = in.send(e.prDeliveryFor(1, b, a))
		expectStatus(t, "B", code, body, http.StatusAccepted, `"queued"`)
		code, body = in.send(e.prDeliveryFor(1, a, ""))
		expectStatus(t, "A, late", code, body, http.StatusAccepted, `"queued"`)
		close(held.Release)
		e.waitStatus(heads[2][1])
		calls := e.publishing(e.waitCalls("final status of B", e.finalStatus(b)))
		e.waitLog(`"msg":"job finished"`, 3)
		got := e.prCalls(calls, 1, heads[1])
		lines := e.reviewLines(e.fake.Calls(), b)
		want := append([]call{{Op: "GET " + e.repoPath() + "/pulls/1"}}, e.demoRun(1, b, lines, 0)...)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("PR #1 calls (-want +got):\n%s", d)
		}
		stopDrained(t, in, e.dataDir)
	})
}
