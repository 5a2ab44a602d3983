package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/server"
)

// TestFetchWhileLoginUnknown: GET /user fails (500 on every attempt) and the PR cannot be
// read either, so the run fetches before it sets pending (it cannot tell whether the
// delivered head is still the PR's). The clone credentials need no user name from the forge
// (Gitea and Forgejo take the token as the password whatever the name), so the head is
// reviewed in full and GET /user is never asked by the run: the exact calls, identity
// requests included, are the PR read (twice: one retry), then the review.
func TestFetchWhileLoginUnknown(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, exp expectation) {
		head := e.repo.head
		e.retry = forge.RetryOptions{MaxRetries: 1}
		// The learner asks when the server starts, and not again during the test.
		e.loginRetry = server.LoginRetry{Backoff: time.Hour}
		for range 40 {
			e.fake.FailNext("/user", http.StatusInternalServerError, nil)
		}
		for range 2 {
			e.fake.FailNext(e.repoPath()+"/pulls/1", http.StatusInternalServerError, nil)
		}
		in := e.start(true)
		e.waitLog(`"msg":"the bot's accounts","logins":{}`, 1)
		e.fake.ResetCalls()
		code, body := in.send(e.prDelivery(head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		calls := e.waitCalls("final status of head", e.finalStatus(head))
		want := append([]call{e.getPR()}, e.reviewRun(head, 0, exp)...)
		var got []call
		for _, c := range calls {
			got = append(got, e.reduce(c))
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("forge calls, identity requests included (-want +got):\n%s", d)
		}
	})
}
