package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// getsPR reports whether c reads PR #1.
func getsPR(c forgetest.Call) bool {
	return c.Method == http.MethodGet && strings.HasSuffix(c.Path, "/pulls/1")
}

// waitRecorded waits until the fake has recorded n calls that match accepts: a call is
// recorded once its BeforeServe hook returns, so a run started by the hook can reach the
// fake first.
func (e *env) waitRecorded(match func(forgetest.Call) bool, n int) {
	e.t.Helper()
	e.waitUntil(fmt.Sprintf("%d calls recorded", n), func() bool {
		got := 0
		for _, c := range e.fake.Calls() {
			if match(c) {
				got++
			}
		}
		return got >= n
	})
}

// forgeHeadRun is the call sequence of the review of head, queued from the forge (a
// resumed job): it reads head's status first and whether its review is posted.
func (e *env) forgeHeadRun(head string, lines []string) []call {
	return []call{
		e.headStatuses(head), e.getPR(), e.status(head, "pending", pendingDesc),
		e.listComments(), e.createSummary(demoVerdict), e.changedFiles(),
		{Op: "GET " + e.repoPath() + "/pulls/1/reviews"}, e.review(head, lines),
		e.status(head, "failure", demoDescription),
	}
}

// TestForgeHeadMovesOnAgain: PR #1 is pushed A, B, C; only A is delivered, while the forge
// already shows B. A's run queues B from the forge; by the time B's run reads the PR the
// forge shows C, so B's run queues C in turn. Neither A nor B was ever set pending, so
// neither gets a status: C gets the one review. Before, B got `error "superseded by C"`,
// a final status on a head the bot never marked pending (the queued-from-forge job was
// taken for one whose run may have set pending).
func TestForgeHeadMovesOnAgain(t *testing.T) {
	eachFlavour(t, []flavour{github, gitea, forgejo}, func(t *testing.T, fl flavour) {
		e, heads := newManyPREnv(t, fl, 1, 3)
		a, b, c := heads[1][0], heads[1][1], heads[1][2]
		e.fake.SetPR(1, b, e.repo.base, false)
		var reads atomic.Int32
		e.fake.BeforeServe(func(cl forgetest.Call) {
			if getsPR(cl) && reads.Add(1) == 2 { // B's run reads the PR: C was pushed meanwhile
				e.fake.SetPR(1, c, e.repo.base, false)
			}
		})
		in := e.start(true)
		code, body := in.send(e.prDeliveryFor(1, a, ""))
		expectStatus(t, "A", code, body, http.StatusAccepted, `"queued"`)
		calls := e.publishing(e.waitCalls("final status of C", e.finalStatus(c)))
		e.waitLog(`"msg":"job finished"`, 3)
		lines := e.reviewLines(e.fake.Calls(), c)
		want := append([]call{e.getPR(), e.headStatuses(b), e.getPR()}, e.forgeHeadRun(c, lines)...)
		if d := cmp.Diff(want, calls); d != "" {
			t.Errorf("calls (-want +got):\n%s", d)
		}
		stopDrained(t, in, e.dataDir)
	})
}

// TestForgeHeadSupersededByDelivery: PR #1 is pushed A, B, C; A is delivered while the
// forge shows B, so A's run queues B from the forge; C is pushed and delivered as B's run
// begins (its first request, the read of B's status), which cancels it. B was never set
// pending, so C's run leaves it alone: no status on A or B, C's one review. Before, C's run
// set B `error "superseded by C"`.
func TestForgeHeadSupersededByDelivery(t *testing.T) {
	eachFlavour(t, []flavour{github, gitea, forgejo}, func(t *testing.T, fl flavour) {
		e, heads := newManyPREnv(t, fl, 1, 3)
		a, b, c := heads[1][0], heads[1][1], heads[1][2]
		e.fake.SetPR(1, b, e.repo.base, false)
		var in *instance
		var once sync.Once
		var code int
		var body string
		statusesB := "/commits/" + b + "/statuses"
		readsB := func(cl forgetest.Call) bool {
			return cl.Method == http.MethodGet && strings.HasSuffix(cl.Path, statusesB)
		}
		var reads atomic.Int32
		e.fake.BeforeServe(func(cl forgetest.Call) {
			switch {
			case readsB(cl):
				once.Do(func() {
					e.fake.SetPR(1, c, e.repo.base, false)
					code, body = in.send(e.prDeliveryFor(1, c, b))
				})
			case getsPR(cl) && reads.Add(1) == 2: // C's run: after B's read is recorded
				e.waitRecorded(readsB, 1)
			}
		})
		in = e.start(true)
		code0, body0 := in.send(e.prDeliveryFor(1, a, ""))
		expectStatus(t, "A", code0, body0, http.StatusAccepted, `"queued"`)
		calls := e.publishing(e.waitCalls("final status of C", e.finalStatus(c)))
		e.waitLog(`"msg":"job finished"`, 3)
		expectStatus(t, "C", code, body, http.StatusAccepted, `"queued"`)
		lines := e.reviewLines(e.fake.Calls(), c)
		want := append([]call{e.getPR(), e.headStatuses(b)}, e.demoRun(1, c, lines, 0)...)
		if d := cmp.Diff(want, calls); d != "" {
			t.Errorf("calls (-want +got):\n%s", d)
		}
		stopDrained(t, in, e.dataDir)
	})
}

// TestSupersededStatusOnce: PR #1 is pushed A, B, C. B is delivered, then A, late, while
// the only worker reviews PR #2, and the forge's API still shows A: A's run sets A pending,
// fetches, finds B newer and hands the job to B, setting no status (giveWay). B's run sets
// B pending, then A `error "superseded by B"`. C is pushed and delivered while that
// request is on its way, which cancels B's run. A gets that one final status (a status
// request once started is not cancelled with the run), B is left to C's run, which took
// B's job over: it sets B `error "superseded by C"` and leaves A alone. Before, the
// cancelled request, served by the forge, was followed by a second final status on A.
func TestSupersededStatusOnce(t *testing.T) {
	eachFlavour(t, []flavour{github, gitea, forgejo}, func(t *testing.T, fl flavour) {
		e, heads := newManyPREnv(t, fl, 2, 3)
		a, b, c := heads[1][0], heads[1][1], heads[1][2]
		e.fake.SetPR(1, a, e.repo.base, false)
		var in *instance
		var once sync.Once
		var code int
		var body string
		e.fake.BeforeServe(func(cl forgetest.Call) {
			st, _ := cl.Body.(map[string]any)
			if cl.Method == http.MethodPost && strings.HasSuffix(cl.Path, "/statuses/"+a) && st["state"] == "error" {
				once.Do(func() {
					e.fake.SetPR(1, c, e.repo.base, false)
					code, body = in.send(e.prDeliveryFor(1, c, b))
				})
			}
		})
		in, release := e.busyWorker(heads[2][2])
		for _, d := range []struct {
			what string
			d    delivery
		}{{"B", e.prDeliveryFor(1, b, a)}, {"A, late", e.prDeliveryFor(1, a, "")}} {
			code, body := in.send(d.d)
			expectStatus(t, d.what, code, body, http.StatusAccepted, `"queued"`)
		}
		release()
		calls := e.publishing(e.waitCalls("final status of C", e.finalStatus(c)))
		e.waitLog(`"msg":"job finished"`, 3)
		expectStatus(t, "C", code, body, http.StatusAccepted, `"queued"`)
		got := e.prCalls(calls, 1, heads[1])
		lines := e.reviewLines(e.fake.Calls(), c)
		want := []call{e.getPR(), e.status(a, "pending", pendingDesc),
			e.getPR(), e.status(b, "pending", pendingDesc), e.status(a, "error", "superseded by "+b[:7])}
		want = append(want, e.demoRun(1, c, lines, 0, b)...)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("PR #1 calls (-want +got):\n%s", d)
		}
		stopDrained(t, in, e.dataDir)
	})
}

// TestSupersededNamesReviewedHead: PR #1 is pushed A, B, C, each delivered as the forge
// shows it. A's run has set A pending and fetched when B's delivery cancels it (as it
// reads the PR's comments, to post its summary); C's delivery cancels B's run as it begins (its read of the
// PR), before B is set pending. A's "superseded by" status is set by C's run and names C,
// the head reviewed; B, never pending, gets none. Before, A's cancelled run set A
// `error "superseded by B"` at once, naming a head that was never reviewed.
func TestSupersededNamesReviewedHead(t *testing.T) {
	eachFlavour(t, []flavour{github, gitea, forgejo}, func(t *testing.T, fl flavour) {
		e, heads := newManyPREnv(t, fl, 1, 3)
		a, b, c := heads[1][0], heads[1][1], heads[1][2]
		e.fake.SetPR(1, a, e.repo.base, false)
		var in *instance
		var onceB, onceC sync.Once
		var codes []int
		var reads atomic.Int32
		push := func(head, before string) {
			e.fake.SetPR(1, head, e.repo.base, false)
			code, _ := in.send(e.prDeliveryFor(1, head, before))
			codes = append(codes, code)
		}
		e.fake.BeforeServe(func(cl forgetest.Call) {
			switch {
			case cl.Method == http.MethodGet && strings.HasSuffix(cl.Path, "/issues/1/comments"):
				onceB.Do(func() { push(b, a) })
			case getsPR(cl):
				switch reads.Add(1) {
				case 2: // B's run
					onceC.Do(func() { push(c, b) })
				case 3: // C's run: after B's read is recorded
					e.waitRecorded(getsPR, 2)
				}
			}
		})
		in = e.start(true)
		code, body := in.send(e.prDeliveryFor(1, a, ""))
		expectStatus(t, "A", code, body, http.StatusAccepted, `"queued"`)
		calls := e.publishing(e.waitCalls("final status of C", e.finalStatus(c)))
		e.waitLog(`"msg":"job finished"`, 3)
		if d := cmp.Diff([]int{http.StatusAccepted, http.StatusAccepted}, codes); d != "" {
			t.Errorf("B's and C's answers (-want +got):\n%s", d)
		}
		lines := e.reviewLines(e.fake.Calls(), c)
		// A's summary, its write begun, is completed (writes are not cancelled); C's edits it.
		want := []call{e.getPR(), e.status(a, "pending", pendingDesc), e.listComments(), e.createSummary(demoVerdict), e.getPR()}
		want = append(want, e.demoRun(1, c, lines, e.summary().ID, a)...)
		if d := cmp.Diff(want, calls); d != "" {
			t.Errorf("calls (-want +got):\n%s", d)
		}
		stopDrained(t, in, e.dataDir)
	})
}

// TestGiveWayNamesReviewedHead: PR #1 is pushed A, B, C. B is delivered, then A, late,
// while the only worker reviews PR #2, and the forge's API still shows A: A's run sets A
// pending, fetches, finds B newer and hands the job to B. C is pushed and delivered as B's
// run begins (its read of the PR), before B is set pending. A's "superseded by" status is
// set by C's run and names C, the head reviewed; B, never pending, gets none. Before, A's
// run set A `error "superseded by B"` at once, naming a head that never got a result.
func TestGiveWayNamesReviewedHead(t *testing.T) {
	eachFlavour(t, []flavour{github, gitea, forgejo}, func(t *testing.T, fl flavour) {
		e, heads := newManyPREnv(t, fl, 2, 3)
		a, b, c := heads[1][0], heads[1][1], heads[1][2]
		e.fake.SetPR(1, a, e.repo.base, false)
		var in *instance
		var once sync.Once
		var code int
		var body string
		var reads atomic.Int32
		e.fake.BeforeServe(func(cl forgetest.Call) {
			if !getsPR(cl) {
				return
			}
			switch reads.Add(1) {
			case 2: // B's run
				once.Do(func() {
					e.fake.SetPR(1, c, e.repo.base, false)
					code, body = in.send(e.prDeliveryFor(1, c, b))
				})
			case 3: // C's run: after B's read is recorded
				e.waitRecorded(getsPR, 2)
			}
		})
		in, release := e.busyWorker(heads[2][2])
		for _, d := range []struct {
			what string
			d    delivery
		}{{"B", e.prDeliveryFor(1, b, a)}, {"A, late", e.prDeliveryFor(1, a, "")}} {
			code, body := in.send(d.d)
			expectStatus(t, d.what, code, body, http.StatusAccepted, `"queued"`)
		}
		release()
		calls := e.publishing(e.waitCalls("final status of C", e.finalStatus(c)))
		e.waitLog(`"msg":"job finished"`, 4)
		expectStatus(t, "C", code, body, http.StatusAccepted, `"queued"`)
		got := e.prCalls(calls, 1, heads[1])
		lines := e.reviewLines(e.fake.Calls(), c)
		want := []call{e.getPR(), e.status(a, "pending", pendingDesc), e.getPR()}
		want = append(want, e.demoRun(1, c, lines, 0, a)...)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("PR #1 calls (-want +got):\n%s", d)
		}
		stopDrained(t, in, e.dataDir)
	})
}
