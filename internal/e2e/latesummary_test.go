package e2e

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// TestSupersededSummaryLandsFirst: the forge is slow to carry out head's summary comment
// (the request is held before the forge applies it), and head2 is pushed meanwhile, which
// cancels head's run; one worker. The write once started completes (detached, bounded)
// before head's run ends, and head2's run starts only then, so it finds head's summary and
// edits it: one summary, describing head2. Before, head's cancelled request was applied
// after head2's run had created its own: two summaries, the newest describing the
// superseded head.
func TestSupersededSummaryLandsFirst(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, exp expectation) {
		e.workers = 1
		head, head2 := e.repo.head, e.repo.head2
		create := "POST " + e.repoPath() + "/issues/1/comments"
		arrivedCh, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		e.fake.BeforeServe(func(c forgetest.Call) {
			if e.reduce(c).Op == create {
				once.Do(func() { close(arrivedCh); <-release })
			}
		})
		in := e.start(true)
		code, body := in.send(e.prDelivery(head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		select {
		case <-arrivedCh:
		case <-time.After(waitLimit):
			t.Fatal("head's summary was never sent")
		}
		e.pushHead2()
		code, body = in.send(e.prDelivery(head2, head))
		expectStatus(t, "synchronize", code, body, http.StatusAccepted, `"queued"`)
		// Held until head2's run writes its summary (it did, before) or for 3 s.
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) && !has(e.createSummary(cdiVerdict))(e.publishing(e.fake.Calls())) {
			time.Sleep(10 * time.Millisecond)
		}
		close(release)
		calls := e.waitCalls("final status of head2", e.finalStatus(head2))
		e.waitLog(`"msg":"job finished"`, 2)
		summary := e.summary() // exactly one
		if !strings.HasSuffix(summary.Body, "\n\n"+forge.HeadMarker(head2)) {
			t.Errorf("the summary does not end with head2's marker:\n%s", summary.Body)
		}
		// head's run stops after its summary; head2's run, which fetched both heads, marks
		// head superseded after its pending status.
		run, run2 := e.reviewRun(head, 0, exp), e.reviewRun(head2, summary.ID, exp)
		want := append(run[:4:4], run2[:2]...)
		want = append(want, e.status(head, "error", "superseded by "+head2[:7]))
		want = append(want, run2[2:]...)
		e.assertCalls("head superseded while its summary is written", calls, want)
	})
}
