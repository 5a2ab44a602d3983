package e2e

import (
	"net/http"
	"testing"
)

// TestFinalAppliedThenPushLost: the forge carries out A's final status but its answer never
// comes, and the server is stopped there (SIGKILL, or SIGTERM once the detached final
// status gives up); B, a child of A, is pushed while no server runs and its delivery is
// lost. The next process resumes A's job: A's final status is on the forge, yet the run
// still reads the PR, finds B, queues it from the forge and reviews it once; A keeps its
// own status. Before, the resumed run ended at A's status ("published its final status
// already") and B was never reviewed.
func TestFinalAppliedThenPushLost(t *testing.T) {
	eachInterruption(t, []string{"final status"}, func(t *testing.T, fl flavour, kill bool, _ string) {
		if fl.app {
			t.Skip("the App flavour is covered by github's token")
		}
		e, heads := newManyPREnv(t, fl, 1, 2)
		a, b := heads[1][0], heads[1][1]
		e.fake.SetPR(1, a, e.repo.base, false)
		statuses := e.fl.apiBase + e.repoPath() + "/statuses/" + a
		e.fake.PassNext(statuses) // pending
		e.fake.HangAfterNext(statuses)
		first := e.startProc(kill, true)
		if code := first.send(e.prDelivery(a, "")); code != http.StatusAccepted {
			t.Fatalf("A opened: %d, want 202", code)
		}
		e.waitCalls("A's final status", arrived(e.status(a, "failure", demoDescription)))
		first.end()
		if n := checkQueueFile(t, e.dataDir); n != 1 {
			t.Fatalf("%d jobs stored after the stop, want 1", n)
		}
		summaryID := e.summary().ID

		e.fake.SetPR(1, b, e.repo.base, false) // B's delivery is lost
		e.fake.ResetCalls()
		last := e.startProc(kill, true)
		calls := e.waitCalls("final status of B", e.finalStatus(b))
		e.waitLog(`"msg":"job finished"`, 2)
		last.end()
		// A's job reads A's status and the PR; B's run, queued from the forge, reads B's
		// status first (it may have been reviewed), then A's (final: left as it is) and
		// the PR's reviews before it posts its own.
		run := e.demoRun(1, b, e.reviewLines(calls, b), summaryID)
		want := []call{e.headStatuses(a), e.getPR(), e.headStatuses(b)}
		want = append(want, run[:2]...)
		want = append(want, e.headStatuses(a))
		want = append(want, run[2:5]...)
		want = append(want, call{Op: "GET " + e.repoPath() + "/pulls/1/reviews"})
		want = append(want, run[5:]...)
		e.assertCalls("after the restart", calls, want)
		if n := checkQueueFile(t, e.dataDir); n != 0 {
			t.Errorf("%d jobs stored at the end, want 0", n)
		}
	})
}
