package e2e

import (
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
		in.stop()
		if n := checkQueueFile(t, e.dataDir); n != 0 {
			t.Errorf("%d jobs stored at the end, want 0", n)
		}
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
		e.fake.BeforeServe(func(cl forgetest.Call) {
			if cl.Method == http.MethodGet && strings.HasSuffix(cl.Path, statusesB) {
				once.Do(func() {
					e.fake.SetPR(1, c, e.repo.base, false)
					code, body = in.send(e.prDeliveryFor(1, c, b))
				})
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
		in.stop()
		if n := checkQueueFile(t, e.dataDir); n != 0 {
			t.Errorf("%d jobs stored at the end, want 0", n)
		}
	})
}

// TestSupersededStatusOnce: PR #1 is pushed A, B, C. B is delivered, then A, late, while
// the only worker reviews PR #2, and the forge's API still shows A: A's run sets A pending,
// fetches, finds B newer and sets A `error "superseded by B"`. C is pushed and delivered
// while that request is on its way, which cancels A's run. A gets that one final status
// (the run no longer cancels a status request it has started), and C's run, which took
// A's job over, leaves A alone. Before, the cancelled request, served by the forge, was
// followed by the cancelled run's own `error "superseded by C"`: two final statuses on A.
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
		want := []call{e.getPR(), e.status(a, "pending", pendingDesc), e.status(a, "error", "superseded by "+b[:7])}
		want = append(want, e.demoRun(1, c, lines, 0)...)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("PR #1 calls (-want +got):\n%s", d)
		}
		in.stop()
		if n := checkQueueFile(t, e.dataDir); n != 0 {
			t.Errorf("%d jobs stored at the end, want 0", n)
		}
	})
}
