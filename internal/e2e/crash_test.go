package e2e

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCrashDuringReview kills the server process with SIGKILL twice during one review:
// while it fetches the PR (the git server holds the request) and while it posts the line
// comments (the fake forge holds the request for the PR's reviews, after the summary comment
// was written).
// Each time the queue file passes bbolt's check, and the next process runs the accepted job
// again; in the end the head has exactly one final status, one summary comment and one
// applied review.
func TestCrashDuringReview(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, exp expectation) {
		head := e.repo.head
		api := e.fl.apiBase + e.repoPath()

		// Killed while fetching.
		held := e.git.holdFetch()
		first := e.startChild(true)
		if code, err := first.send(e.prDelivery(head, "")); err != nil || code != http.StatusAccepted {
			t.Fatalf("opened: %d %v, want 202", code, err)
		}
		select {
		case <-held.Arrived:
		case <-time.After(waitLimit):
			t.Fatal("the review never fetched")
		}
		first.kill()
		close(held.Release)
		if n := checkQueueFile(t, e.dataDir); n != 1 {
			t.Fatalf("%d jobs stored after the kill, want 1", n)
		}

		// Killed while posting the line comments.
		e.fake.StallNext(api + "/pulls/1/reviews")
		second := e.startChild(true)
		e.waitCalls("the line comments posted", func(calls []call) bool {
			return len(calls) > 0 && strings.HasSuffix(calls[len(calls)-1].Op, "/pulls/1/reviews")
		})
		second.kill()
		if n := checkQueueFile(t, e.dataDir); n != 1 {
			t.Fatalf("%d jobs stored after the second kill, want 1", n)
		}

		// The third process finishes the job.
		third := e.startChild(true)
		calls := e.waitCalls("final status of head", e.finalStatus(head))
		summary := e.summary()
		run := e.resumedRun(head, 0, exp)
		// The third finds the summary of this head posted: it edits nothing.
		rerun := withoutSummaryEdit(e.resumedRun(head, summary.ID, exp))
		// Each process reads the PR and sets pending; the second, resumed, reads the head's
		// status first and gets as far as reading the PR's reviews (held).
		want := append(run[1:3:3], run[:7]...)
		want = append(want, rerun...)
		e.assertCalls("a review killed twice", calls, want)
		e.waitLog(`"msg":"job finished"`, 1)
		third.kill()
		if n := checkQueueFile(t, e.dataDir); n != 0 {
			t.Errorf("%d jobs stored after the final status, want 0", n)
		}
	})
}

// TestCrashDuringQueueWrites kills the server process with SIGKILL twice while it accepts a
// burst of deliveries (12 PRs, 3 pushes each, one sender per PR in push order, 12 at once),
// so that each kill lands among queue writes in flight. Each time the queue file passes
// bbolt's check. Senders whose request got no answer send it again to the next process, as
// a forge redelivers (same delivery id). The processes run no workers until the burst is
// all answered, so
// the outcome is exact: every PR's newest head gets one review (pending, then its final
// status) and no older head gets any status.
func TestCrashDuringQueueWrites(t *testing.T) {
	t.Parallel()
	const prs, pushes = 12, 3
	e, heads := newManyPREnv(t, github, prs, pushes)
	deliveries := map[int][]delivery{}
	for n := 1; n <= prs; n++ {
		before := ""
		for _, h := range heads[n] {
			deliveries[n] = append(deliveries[n], e.prDeliveryFor(n, h, before))
			before = h
		}
	}
	next := map[int]int{} // per PR: the index of the delivery not answered yet
	var mu sync.Mutex
	answered := 0
	// burst sends every PR's remaining deliveries in order through c until the process dies.
	burst := func(c *child) (cut int) {
		var wg sync.WaitGroup
		for n := 1; n <= prs; n++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					mu.Lock()
					i := next[n]
					mu.Unlock()
					if i == pushes {
						return
					}
					code, err := c.send(deliveries[n][i])
					if err != nil {
						mu.Lock()
						cut++
						mu.Unlock()
						return // the process died; this delivery is sent again to the next one
					}
					if code != http.StatusAccepted && code != http.StatusOK {
						t.Errorf("PR %d push %d: answered %d", n, i+1, code)
						return
					}
					mu.Lock()
					next[n]++
					answered++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		return
	}
	for round, killAt := range []int{10, 22} {
		c := e.startChild(false)
		done := make(chan int)
		go func() { done <- burst(c) }()
		deadline := time.Now().Add(waitLimit)
		for {
			mu.Lock()
			n := answered
			mu.Unlock()
			if n >= killAt {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: only %d deliveries answered", round, n)
			}
			time.Sleep(time.Millisecond)
		}
		c.kill()
		cut := <-done
		mu.Lock()
		t.Logf("round %d: killed after %d answers with %d requests in flight", round, answered, cut)
		mu.Unlock()
		checkQueueFile(t, e.dataDir)
	}
	// A third process takes the rest; the last runs the reviews.
	c := e.startChild(false)
	burst(c)
	for n := 1; n <= prs; n++ {
		if next[n] != pushes {
			t.Fatalf("PR %d: %d of %d pushes answered", n, next[n], pushes)
		}
	}
	c.kill()
	if n := checkQueueFile(t, e.dataDir); n != prs {
		t.Fatalf("%d jobs stored after the burst, want %d (one per PR)", n, prs)
	}
	c = e.startChild(true)
	for n := 1; n <= prs; n++ {
		e.waitStatus(heads[n][pushes-1])
	}
	e.waitLog(`"msg":"job finished"`, prs)
	c.kill()
	if n := checkQueueFile(t, e.dataDir); n != 0 {
		t.Errorf("%d jobs stored after every review, want 0", n)
	}
	statuses := map[string][]string{}
	for _, cl := range e.publishing(e.fake.Calls()) {
		if sha, ok := strings.CutPrefix(cl.Op, "POST "+e.repoPath()+"/statuses/"); ok {
			statuses[sha] = append(statuses[sha], cl.Detail)
		}
	}
	for n := 1; n <= prs; n++ {
		for i, h := range heads[n] {
			var want []string
			if i == pushes-1 {
				want = []string{"pending [tiergate] " + pendingDesc, "failure [tiergate] " + demoDescription}
			}
			if d := cmp.Diff(want, statuses[h]); d != "" {
				t.Errorf("PR %d push %d: statuses (-want +got):\n%s", n, i+1, d)
			}
		}
	}
}

// waitStatus polls the fake forge until sha has a status other than pending.
func (e *env) waitStatus(sha string) {
	e.t.Helper()
	e.waitCalls("final status of "+sha[:7], e.finalStatus(sha))
}
