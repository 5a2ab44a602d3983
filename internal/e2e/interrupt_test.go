package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// proc is a server, in this process (stopped as bot serve stops on SIGTERM) or a child
// process (killed with SIGKILL).
type proc struct {
	send func(delivery) int // the answer's status code; 0 when none came
	end  func()
}

// startProc starts a server over the env's data directory: killed (SIGKILL) or stopped
// (SIGTERM) when it ends.
func (e *env) startProc(kill, run bool) proc {
	e.t.Helper()
	if kill {
		c := e.startChild(run)
		return proc{send: func(d delivery) int { code, _ := c.send(d); return code }, end: c.kill}
	}
	in := e.start(run)
	return proc{send: func(d delivery) int { code, _ := in.send(d); return code }, end: in.stop}
}

// publishStep is a step of a review at which the server is interrupted: the fake forge
// holds the request that starts it.
type publishStep struct {
	name string
	// hold makes the fake hold the step's request of a review of sha; it returns the
	// call that shows the request arrived.
	hold func(e *env, sha string) call
	// summaryPosted: the summary comment was created before the step.
	summaryPosted bool
	// final: the run recorded its head as final before the step; the next run reads the
	// head's status before it sets one on it.
	final bool
}

var publishSteps = []publishStep{
	{name: "pending", hold: func(e *env, sha string) call {
		e.fake.StallNext(e.fl.apiBase + e.repoPath() + "/statuses/" + sha)
		return e.status(sha, "pending", pendingDesc)
	}},
	{name: "summary", hold: func(e *env, sha string) call {
		e.fake.StallNext(e.fl.apiBase + e.repoPath() + "/issues/1/comments")
		return e.listComments()
	}},
	{name: "line review", summaryPosted: true, hold: func(e *env, sha string) call {
		e.fake.StallNext(e.fl.apiBase + e.repoPath() + "/pulls/1/reviews")
		return e.review(sha, nil)
	}},
	{name: "check run", summaryPosted: true, hold: func(e *env, sha string) call {
		e.fake.StallNext(e.repoPath() + "/check-runs")
		return call{Op: "POST " + e.repoPath() + "/check-runs"}
	}},
	{name: "final status", summaryPosted: true, final: true, hold: func(e *env, sha string) call {
		e.fake.PassNext(e.fl.apiBase + e.repoPath() + "/statuses/" + sha)
		e.fake.StallNext(e.fl.apiBase + e.repoPath() + "/statuses/" + sha)
		return e.status(sha, "failure", demoDescription)
	}},
}

// stepNames are the names of steps, in order.
func stepNames(steps []publishStep) []string {
	var out []string
	for _, st := range steps {
		out = append(out, st.name)
	}
	return out
}

// publishStepNamed is the step of publishSteps called name.
func publishStepNamed(name string) publishStep {
	for _, st := range publishSteps {
		if st.name == name {
			return st
		}
	}
	panic("no publish step " + name)
}

// arrived holds once the last call has want's operation (and detail, when want has one).
func arrived(want call) func([]call) bool {
	return func(calls []call) bool {
		if len(calls) == 0 {
			return false
		}
		last := calls[len(calls)-1]
		return last.Op == want.Op && (want.Detail == "" || strings.HasPrefix(last.Detail, want.Detail))
	}
}

// TestInterruptedThenPushedWhileDown interrupts the review of A, by SIGKILL or SIGTERM, at
// each publish step; B (a child of A) is pushed and delivered to a process without workers,
// which stops too. The next process reviews B once and sets A, left pending, to error
// "superseded by B": no head stays pending.
func TestInterruptedThenPushedWhileDown(t *testing.T) {
	eachInterruption(t, stepNames(publishSteps), func(t *testing.T, fl flavour, kill bool, name string) {
		step := publishStepNamed(name)
		e, heads := newManyPREnv(t, fl, 1, 2)
		a, b := heads[1][0], heads[1][1]
		e.fake.SetPR(1, a, e.repo.base, false)
		held := step.hold(e, a)
		first := e.startProc(kill, true)
		if code := first.send(e.prDelivery(a, "")); code != http.StatusAccepted {
			t.Fatalf("A opened: %d, want 202", code)
		}
		e.waitCalls("the "+step.name+" of A", arrived(held))
		first.end()

		e.fake.SetPR(1, b, e.repo.base, false)
		down := e.startProc(kill, false)
		if code := down.send(e.prDelivery(b, a)); code != http.StatusAccepted {
			t.Fatalf("B synchronize: %d, want 202", code)
		}
		down.end()

		e.fake.ResetCalls()
		last := e.startProc(kill, true)
		calls := e.waitCalls("final status of B", e.finalStatus(b))
		e.waitLog(`"msg":"job finished"`, 1)
		last.end()
		var summaryID int64
		if step.summaryPosted {
			summaryID = e.summary().ID
		} else {
			e.summary()
		}
		want := e.demoRun(1, b, e.reviewLines(calls, b), summaryID, a)
		if step.final { // A's final status never reached the forge: A reads pending
			want = append(want[:2], append([]call{e.headStatuses(a)}, want[2:]...)...)
		}
		if fl.app {
			want = e.withCheckRun(want, calls)
		}
		e.assertCalls("B's review", calls, want)
		if n := checkQueueFile(t, e.dataDir); n != 0 {
			t.Errorf("%d jobs stored at the end, want 0", n)
		}
	})
}

// withCheckRun inserts the App's check run before the final status of run: created
// completed, then annotated (the annotations are the forge got: the forge and publish
// packages test their content).
func (e *env) withCheckRun(run []call, calls []forgetest.Call) []call {
	detail := "[tiergate] " + demoDescription + "; summary: " + demoVerdict
	patch := call{Op: "PATCH " + e.repoPath() + "/check-runs/{id}", Detail: detail}
	for _, c := range e.publishing(calls) {
		if c.Op == patch.Op {
			patch.Lines = c.Lines
		}
	}
	out := append([]call(nil), run[:len(run)-1]...)
	return append(out, call{Op: "POST " + e.repoPath() + "/check-runs", Detail: "failure " + detail}, patch, run[len(run)-1])
}
