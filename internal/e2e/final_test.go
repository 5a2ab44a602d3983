package e2e

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// TestFinalIsFinal: a push of head2 is accepted while head's final status is in flight
// (after its run published the review, before its job is deleted). head keeps its own
// review's status: neither head's cancelled run nor head2's run marks it superseded.
func TestFinalIsFinal(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, exp expectation) {
		head, head2 := e.repo.head, e.repo.head2
		arrived, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		e.fake.BeforeServe(func(c forgetest.Call) {
			n := e.reduce(c)
			if n.Op == "POST "+e.repoPath()+"/statuses/"+head && !strings.HasPrefix(n.Detail, "pending ") {
				once.Do(func() { close(arrived); <-release })
			}
		})
		in := e.start(true)
		code, body := in.send(e.prDelivery(head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		select {
		case <-arrived:
		case <-time.After(waitLimit):
			t.Fatal("head's final status was never sent")
		}
		e.pushHead2()
		code, body = in.send(e.prDelivery(head2, head))
		expectStatus(t, "synchronize", code, body, http.StatusAccepted, `"queued"`)
		close(release)
		e.waitCalls("final status of head2", e.finalStatus(head2))
		e.waitLog(`"msg":"job finished"`, 2)
		// head2's run reads head's status (it may have been left pending) and leaves it.
		run2 := e.reviewRun(head2, e.summary().ID, exp)
		want := append(e.reviewRun(head, 0, exp), run2[:2]...)
		want = append(append(want, e.headStatuses(head)), run2[2:]...)
		e.assertCalls("head final, then head2", e.fake.Calls(), want)
		stopDrained(t, in, e.dataDir)
	})
}
