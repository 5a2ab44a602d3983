package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestCrashDuringReview kills the server process with SIGKILL twice during one review:
// while it fetches the PR (the git server holds the request) and while it posts the line
// comments (the fake forge holds that request, after the summary comment was written).
// Each time the queue file passes bbolt's check, and the next process runs the accepted job
// again; in the end the head has exactly one final status, one summary comment and one
// applied review.
func TestCrashDuringReview(t *testing.T) {
	t.Parallel()
	for _, fl := range []flavour{github, gitea} {
		t.Run(fl.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, fl, scenario)
			exp := loadExpectation(t, e.scenario)
			head := e.repo.head
			api := fl.apiBase + e.repoPath()

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
			run := e.reviewRun(head, 0, exp)
			rerun := e.reviewRun(head, summary.ID, exp)
			want := append([]call{run[0]}, run[:5]...)
			want = append(want, rerun...)
			e.assertCalls("a review killed twice", calls, want)
			e.waitLog(`"msg":"job finished"`, 1)
			third.kill()
			if n := checkQueueFile(t, e.dataDir); n != 0 {
				t.Errorf("%d jobs stored after the final status, want 0", n)
			}
		})
	}
}
