package e2e

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/forge"
)

// headStatuses is the request by which a resumed run reads what its head's status is.
func (e *env) headStatuses(sha string) call {
	return call{Op: "GET " + e.repoPath() + "/commits/" + sha + "/statuses"}
}

// TestResumedRunPublishesOnce interrupts a review, by SIGKILL or SIGTERM, while the forge
// answers a publishing request it has already carried out (the answer never comes back),
// and restarts the server on the same head with no newer push. The resumed run reads back
// what the bot published: the summary, which ends with the head's marker, is neither added
// nor edited again; the line-comment review is not posted again; after the final status
// nothing is published again (the PR is read: its head is still A).
func TestResumedRunPublishesOnce(t *testing.T) {
	type resumeStep struct {
		name string
		path func(e *env, sha string) string // the request that hangs after it took effect
		pass bool                            // the first request to path is let through
	}
	steps := []resumeStep{
		{"summary", func(e *env, sha string) string { return e.repoPath() + "/issues/1/comments" }, true},
		{"line review", func(e *env, sha string) string { return e.repoPath() + "/pulls/1/reviews" }, false},
		{"check run", func(e *env, sha string) string { return e.repoPath() + "/check-runs" }, false},
		{"final status", func(e *env, sha string) string { return e.repoPath() + "/statuses/" + sha }, true},
	}
	var names []string
	for _, st := range steps {
		names = append(names, st.name)
	}
	eachInterruption(t, names, func(t *testing.T, fl flavour, kill bool, name string) {
		step := steps[slices.IndexFunc(steps, func(s resumeStep) bool { return s.name == name })]
		e, heads := newManyPREnv(t, fl, 1, 1)
		a := heads[1][0]
		path := fl.apiBase + step.path(e, a)
		if step.pass {
			e.fake.PassNext(path) // the list of comments; pending
		}
		e.fake.HangAfterNext(path)
		first := e.startProc(kill, true)
		if code := first.send(e.prDelivery(a, "")); code != http.StatusAccepted {
			t.Fatalf("opened: %d, want 202", code)
		}
		arrivals := 1
		if step.pass {
			arrivals = 2
		}
		e.waitCalls("the "+step.name+" of A", func(calls []call) bool {
			n := 0
			for _, c := range calls {
				if "/"+lastPath(c.Op) == step.path(e, a) {
					n++
				}
			}
			return n == arrivals
		})
		first.end()
		e.fake.ResetCalls()

		last := e.startProc(kill, true)
		e.waitLog(`"msg":"job finished"`, 1)
		calls := e.fake.Calls()
		last.end()
		want := []call{e.headStatuses(a)}
		if step.name == "final status" {
			// Final already: the PR is read for a newer head whose delivery may be lost.
			want = append(want, e.getPR())
		} else {
			var lines []string
			if step.name == "summary" { // not posted before: posted now
				lines = e.reviewLines(calls, a)
			}
			// The summary of this head is on the PR: not edited again.
			run := withoutSummaryEdit(e.demoRun(1, a, lines, e.summary().ID))
			files := len(run) - 1
			if lines != nil {
				files--
			}
			want = append(want, run[:files]...)
			if step.name != "check run" { // else the ledger knows the review
				want = append(want, call{Op: "GET " + e.repoPath() + "/pulls/1/reviews"})
			}
			if fl.app {
				want = append(want, run[files:len(run)-1]...)
				want = append(want, call{Op: "GET " + e.repoPath() + "/commits/" + a + "/check-runs"})
				if step.name != "check run" {
					want = e.withCheckRun(append(want, run[len(run)-1]), calls)
				} else {
					want = append(want, run[len(run)-1])
				}
			} else {
				want = append(want, run[files:]...)
			}
		}
		e.assertCalls("the resumed run", calls, want)
		if body := e.summary().Body; !strings.HasSuffix(body, "\n\n"+forge.HeadMarker(a)) {
			t.Errorf("the summary does not end with the head's marker %q:\n%s", forge.HeadMarker(a), body)
		}
		if n := e.fake.Reviews(1); n != 1 {
			t.Errorf("%d line-comment reviews on the PR, want 1", n)
		}
		if n := e.fake.CheckRuns(a); fl.app && n != 1 {
			t.Errorf("%d check runs on the head, want 1", n)
		}
		if n := checkQueueFile(t, e.dataDir); n != 0 {
			t.Errorf("%d jobs stored at the end, want 0", n)
		}
	})
}

// lastPath is the path of an operation "METHOD /path", without its leading slash.
func lastPath(op string) string {
	for i := 0; i < len(op); i++ {
		if op[i] == '/' {
			return op[i+1:]
		}
	}
	return op
}
