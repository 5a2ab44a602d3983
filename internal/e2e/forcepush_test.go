package e2e

import (
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/gittest"
)

// forcePush makes a commit on main with the demo head's tree that is unrelated to PR n's
// pushes, moves refs/pull/n/head to it on the git server (the earlier heads are no longer
// reachable, so a fetch cannot get them) and makes it the PR's head on the fake forge.
func (e *env) forcePush(n int, msg string) string {
	e.t.Helper()
	r := e.repo
	tree := strings.TrimSpace(runGit(e.t, r.work, "rev-parse", r.head+"^{tree}"))
	cmd := exec.Command("git", "commit-tree", tree, "-p", r.base, "-m", msg)
	cmd.Dir = r.work
	cmd.Env = append(cmd.Environ(), gittest.Env(e.t.TempDir())...)
	out, err := cmd.Output()
	if err != nil {
		e.t.Fatalf("git commit-tree: %v", err)
	}
	x := strings.TrimSpace(string(out))
	runGit(e.t, r.work, "push", "--quiet", "--force", r.bare, x+":refs/pull/"+strconv.Itoa(n)+"/head")
	e.fake.SetPR(n, x, r.base, false)
	return x
}

// busyWorker starts a server with one worker whose fetch of PR #2's head is held: the
// deliveries sent before release is called coalesce in the queue.
func (e *env) busyWorker(pr2Head string) (in *instance, release func()) {
	e.t.Helper()
	e.workers = 1
	held := e.git.holdFetch()
	in = e.start(true)
	code, body := in.send(e.prDeliveryFor(2, pr2Head, ""))
	expectStatus(e.t, "PR #2 opened", code, body, http.StatusAccepted, `"queued"`)
	select {
	case <-held.Arrived:
	case <-time.After(waitLimit):
		e.t.Fatal("PR #2's review never fetched")
	}
	return in, func() { close(held.Release) }
}

// TestForcePushLateRedelivery: PR #1 is pushed A, then B (on A), then force-pushed to X,
// unrelated; the deliveries come A, X, B while the only worker reviews PR #2. B is chosen
// (ancestry beats delivery order) but the PR's ref no longer reaches it, so its fetch
// fails: B gives way to X, the head the forge reports, which gets the one review. Neither
// A nor B ever had a status, so they get none. Before, X ended `error "not reviewed: the
// review of B, delivered after it, failed"`.
func TestForcePushLateRedelivery(t *testing.T) {
	eachFlavour(t, []flavour{github, gitea, forgejo}, func(t *testing.T, fl flavour) {
		e, heads := newManyPREnv(t, fl, 2, 2)
		a, b := heads[1][0], heads[1][1]
		x := e.forcePush(1, "force push")
		in, release := e.busyWorker(heads[2][1])
		for _, d := range []struct {
			what string
			d    delivery
		}{{"A", e.prDeliveryFor(1, a, "")}, {"X", e.prDeliveryFor(1, x, b)}, {"B, late", e.prDeliveryFor(1, b, a)}} {
			code, body := in.send(d.d)
			expectStatus(t, d.what, code, body, http.StatusAccepted, `"queued"`)
		}
		release()
		calls := e.publishing(e.waitCalls("final status of X", e.finalStatus(x)))
		e.waitLog(`"msg":"job finished"`, 3)
		got := e.prCalls(calls, 1, []string{a, b, x})
		lines := e.reviewLines(e.fake.Calls(), x)
		want := append([]call{e.getPR()}, e.demoRun(1, x, lines, 0)...)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("PR #1 calls (-want +got):\n%s", d)
		}
		if !strings.Contains(e.log.String(), `"msg":"the head is gone from the PR's ref; the forge's head is reviewed"`) {
			t.Error("the log does not say why B was not reviewed")
		}
		stopDrained(t, in, e.dataDir)
	})
}

// TestLostDeliveryOfNewestHead: PR #1 is pushed A, B, C and only B's delivery comes. B's
// run finds the PR's head at C, a descendant, with no delivery stored: it queues C itself,
// as a resumed job (C's delivery may have come and been reviewed), so C's run reads C's
// status first and then reviews it. C's delivery, coming after that review, is answered
// "reviewed" and makes no forge call: C is reviewed once. Before, the PR got no status at all.
func TestLostDeliveryOfNewestHead(t *testing.T) {
	eachFlavour(t, []flavour{github, gitea, forgejo}, func(t *testing.T, fl flavour) {
		e, heads := newManyPREnv(t, fl, 1, 3)
		a, b, c := heads[1][0], heads[1][1], heads[1][2]
		in := e.start(true)
		code, body := in.send(e.prDeliveryFor(1, b, a))
		expectStatus(t, "B", code, body, http.StatusAccepted, `"queued"`)
		calls := e.publishing(e.waitCalls("final status of C", e.finalStatus(c)))
		e.waitLog(`"msg":"job finished"`, 2)
		lines := e.reviewLines(e.fake.Calls(), c)
		want := []call{
			e.getPR(), // B's run: the PR's head is C
			e.headStatuses(c), e.getPR(), e.status(c, "pending", pendingDesc),
			e.listComments(), e.createSummary(demoVerdict), e.changedFiles(),
		}
		want = append(want, call{Op: "GET " + e.repoPath() + "/pulls/1/reviews"}) // resumed: the bot's review on C?
		want = append(want, e.review(c, lines), e.status(c, "failure", demoDescription))
		if d := cmp.Diff(want, calls); d != "" {
			t.Errorf("calls (-want +got):\n%s", d)
		}
		if !strings.Contains(e.log.String(), `"msg":"the forge's head of the PR has no delivery here: queued"`) {
			t.Error("the log does not say that C was queued from the forge")
		}

		// C's own delivery, late: C's review published its final status, so it runs nothing.
		code, body = in.send(e.prDeliveryFor(1, c, b))
		expectStatus(t, "C, late", code, body, http.StatusOK, `"reviewed"`)
		if after := e.publishing(e.fake.Calls())[len(calls):]; len(after) != 0 {
			t.Errorf("C's late delivery: calls %+v, want none", after)
		}
		stopDrained(t, in, e.dataDir)
	})
}
