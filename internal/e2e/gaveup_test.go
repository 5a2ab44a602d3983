package e2e

import (
	"net/http"
	"testing"
	"time"
)

// TestGaveUpAfterThreeAttempts: a review that kills its process every time (here: SIGKILL
// while the git server holds its fetch, three processes in a row) is not run a fourth
// time. The fourth process sets the head's status to error "gave up after 3 attempts",
// without reading the PR or fetching, and the job is deleted: the pending status the first
// three set does not stay.
func TestGaveUpAfterThreeAttempts(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, _ expectation) {
		head := e.repo.head
		for attempt := 1; attempt <= maxAttempts; attempt++ {
			held := e.git.holdFetch()
			c := e.startChild(true)
			if attempt == 1 {
				if code, err := c.send(e.prDelivery(head, "")); err != nil || code != http.StatusAccepted {
					t.Fatalf("opened: %d %v, want 202", code, err)
				}
			}
			select {
			case <-held.Arrived:
			case <-time.After(waitLimit):
				t.Fatalf("attempt %d never fetched", attempt)
			}
			c.kill()
			close(held.Release)
			if n := checkQueueFile(t, e.dataDir); n != 1 {
				t.Fatalf("%d jobs stored after kill %d, want 1", n, attempt)
			}
		}
		last := e.startChild(true)
		calls := e.waitCalls("final status of head", e.finalStatus(head))
		e.waitLog(`"msg":"job finished"`, 1)
		last.kill()
		pending := e.status(head, "pending", pendingDesc)
		want := []call{e.getPR(), pending}
		for range maxAttempts - 1 { // resumed runs read the head's status first
			want = append(want, e.headStatuses(head), e.getPR(), pending)
		}
		want = append(want, e.status(head, "error", "gave up after 3 attempts"))
		e.assertCalls("three killed runs and the fourth process", calls, want)
		if n := checkQueueFile(t, e.dataDir); n != 0 {
			t.Errorf("%d jobs stored at the end, want 0", n)
		}
	})
}
