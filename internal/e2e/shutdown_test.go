package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// TestShutdownWhileFinalStatus: SIGTERM (the workers' context cancelled, as bot serve does)
// while the forge holds the request of the head's final status, after the summary and the
// line comments were posted. The run had recorded the head as final, so that request is not
// cancelled with the run: once the forge answers it, the job finishes and nothing is left
// queued. Before, the request was cancelled and the head stayed pending, its comments
// posted, until a restart reviewed it again.
func TestShutdownWhileFinalStatus(t *testing.T) {
	eachForge(t, []flavour{github, githubApp, gitea, forgejo}, func(t *testing.T, e *env, exp expectation) {
		head := e.repo.head
		final := e.status(head, exp.finalState(), cdiDescription)
		held := e.fake.Hold(func(c forgetest.Call) bool {
			n := e.reduce(c)
			return n.Op == final.Op && !strings.HasPrefix(n.Detail, "pending ")
		})
		in := e.start(true)
		code, body := in.send(e.prDelivery(head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		select {
		case <-held.Arrived:
		case <-time.After(waitLimit):
			t.Fatal("the final status was never sent")
		}
		in.cancel() // SIGTERM: the workers stop
		const detached = `"msg":"run cancelled while it sets its final status`
		deadline := time.Now().Add(waitLimit)
		for !strings.Contains(e.log.String(), detached) {
			select {
			case <-held.Gone:
				t.Fatal("the final status request was cancelled with the run: the head stays pending")
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("no log line %s", detached)
			}
			time.Sleep(10 * time.Millisecond)
		}
		held.Release()
		in.stop()
		e.assertCalls("a review whose run was cancelled at its final status", e.fake.Calls(), e.reviewRun(head, 0, exp))
		if n := strings.Count(e.log.String(), `"msg":"job finished"`); n != 1 {
			t.Errorf("%d jobs finished, want 1", n)
		}
		if n := checkQueueFile(t, e.dataDir); n != 0 {
			t.Errorf("%d jobs stored after the shutdown, want 0", n)
		}
	})
}
