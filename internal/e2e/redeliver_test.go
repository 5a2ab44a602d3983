package e2e

import (
	"net/http"
	"testing"
)

// TestLateRedeliveryOfFinalHead: head, then head2, are reviewed to their final status. The
// forge then delivers each again with a new delivery id (a manual redelivery, a reopened
// PR, a delayed retry), head2 first and head, the older, after it, to a process without
// workers. Each is answered 200 "reviewed" and stored nowhere: no run, no forge call, no
// pending status on a head whose review is published. Before, each was queued and its run
// set it pending and reviewed it again.
func TestLateRedeliveryOfFinalHead(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, exp expectation) {
		head, head2 := e.repo.head, e.repo.head2
		in := e.start(true)
		code, body := in.send(e.prDelivery(head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		e.waitCalls("final status of head", e.finalStatus(head))
		e.waitLog(`"msg":"job finished"`, 1)
		e.pushHead2()
		code, body = in.send(e.prDelivery(head2, head))
		expectStatus(t, "synchronize", code, body, http.StatusAccepted, `"queued"`)
		e.waitCalls("final status of head2", e.finalStatus(head2))
		e.waitLog(`"msg":"job finished"`, 2)
		in.stop()

		e.fake.ResetCalls()
		down := e.start(false)
		code, body = down.send(e.prDelivery(head2, head))
		expectStatus(t, "head2 delivered again", code, body, http.StatusOK, `"reviewed"`)
		code, body = down.send(e.prDelivery(head, ""))
		expectStatus(t, "head, older, delivered after head2", code, body, http.StatusOK, `"reviewed"`)
		down.stop()
		if n := checkQueueFile(t, e.dataDir); n != 0 {
			t.Errorf("%d jobs stored after the late deliveries, want 0", n)
		}
		e.assertCalls("late deliveries", e.fake.Calls(), nil)
	})
}
