package e2e

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/forge/forgetest"
	"github.com/tiergate/tiergate/internal/server"
)

// TestOwnRecheckIgnored: with token auth, a /recheck written by the token's own user (a
// User with write access, not marked a bot) is ignored at intake: the server learnt its
// login when it started. A reader's /recheck after it is answered, and is the only thing
// the forge sees.
func TestOwnRecheckIgnored(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, _ expectation) {
		e.fake.SetPermission(forgetest.BotLogin, "write")
		in := e.start(true)
		e.waitLog(`"msg":"the bot's accounts"`, 1)
		own := e.fake.AddComment(1, forgetest.BotLogin, "/recheck")
		code, body := in.send(e.commentDelivery(own, forgetest.BotLogin, "/recheck"))
		expectStatus(t, "the bot's own /recheck", code, body, http.StatusAccepted, `"ignored"`)
		id := e.fake.AddComment(1, reader, "/recheck")
		code, body = in.send(e.commentDelivery(id, reader, "/recheck"))
		expectStatus(t, "reader /recheck", code, body, http.StatusAccepted, `"queued"`)
		refusal := e.reply(id, "@"+reader+" only users with write access can /recheck")
		calls := e.waitCalls("reply to the reader", has(refusal))
		e.assertCalls("two /rechecks", calls, []call{e.permission(reader), refusal})
	})
}

// TestOwnRecheckWhileLoginUnknown: the forge fails to tell the bot's account (GET /user
// 500 on every attempt, two per ask) when the server starts and the learner's next ask;
// the learner asks again after its backoff, in the background. The bot's own /recheck,
// meanwhile, is put back without a forge call and without being counted as an attempt,
// however many times it runs, and counted in no metric; once the learner learns the login
// it is ignored, the next one is ignored at intake, and a reader's /recheck is answered.
func TestOwnRecheckWhileLoginUnknown(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, _ expectation) {
		e.retry = forge.RetryOptions{MaxRetries: 1}
		e.loginRetry = server.LoginRetry{Backoff: 20 * time.Millisecond, Recheck: 10 * time.Millisecond}
		self, who := e.fl.botLogin, "/user"
		e.fake.SetPermission(self, "write")
		const fails = 4 // two asks of the learner
		for range fails {
			e.fake.FailNext(who, http.StatusInternalServerError, nil)
		}
		// The learner's third ask waits until the /recheck was put back at least
		// maxAttempts+1 times: more runs than a counted job would get.
		release := make(chan struct{})
		var asks atomic.Int32
		e.fake.BeforeServe(func(c forgetest.Call) {
			if c.Method == http.MethodGet && c.Path == e.fl.apiBase+who && asks.Add(1) == fails+1 {
				<-release
			}
		})
		in := e.start(true)
		e.waitLog(`"msg":"the bot's accounts","logins":{}`, 1)
		own := e.fake.AddComment(1, self, "/recheck")
		code, body := in.send(e.commentDelivery(own, self, "/recheck"))
		expectStatus(t, "the bot's own /recheck, login unknown", code, body, http.StatusAccepted, `"queued"`)
		e.waitLog(`"msg":"recheck waits for the bot's login"`, maxAttempts+1)
		close(release)
		e.waitLog(`"msg":"recheck by the bot's own account ignored"`, 1)
		e.assertCalls("while the login is unknown", e.fake.Calls(), nil)
		// A put-back /recheck is no started job in the metrics (docs/decisions.md): no run
		// ended, none was timed, and it waited outside the queue.
		for _, m := range []string{`tiergate_review_duration_seconds_count`, `tiergate_queue_depth`,
			`tiergate_reviews_total{result="error"}`, `tiergate_reviews_total{result="superseded"}`} {
			e.waitMetric(in, m, 0)
		}
		if n := strings.Count(e.log.String(), `"msg":"recheck given up`); n != 0 {
			t.Errorf("%d rechecks given up, want 0", n)
		}

		own = e.fake.AddComment(1, self, "/recheck")
		code, body = in.send(e.commentDelivery(own, self, "/recheck"))
		expectStatus(t, "the bot's own /recheck, login known", code, body, http.StatusAccepted, `"ignored"`)
		id := e.fake.AddComment(1, reader, "/recheck")
		code, body = in.send(e.commentDelivery(id, reader, "/recheck"))
		expectStatus(t, "reader /recheck", code, body, http.StatusAccepted, `"queued"`)
		refusal := e.reply(id, "@"+reader+" only users with write access can /recheck")
		calls := e.waitCalls("reply to the reader", has(refusal))
		e.assertCalls("after the login is learnt", calls, []call{e.permission(reader), refusal})
		if n := countCalls(e.fake.Calls(), "GET", e.fl.apiBase+who); n != fails+1 {
			t.Errorf("%s asked %d times, want %d (the learner only: two failed asks, then one answered)", who, n, fails+1)
		}
	})
}

// TestRecheckWaitsWithoutWorker: while the learner's ask of GET /user hangs, the bot's
// one worker is not held by a writer's /recheck: a review of another push publishes in full
// meanwhile. The /recheck is given up, with a reply, once it was accepted longer ago than
// LoginRetry.GiveUp.
func TestRecheckWaitsWithoutWorker(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, exp expectation) {
		e.workers = 1
		e.loginRetry = server.LoginRetry{Recheck: 10 * time.Millisecond, GiveUp: time.Hour}
		release := make(chan struct{})
		defer close(release)
		e.fake.BeforeServe(func(c forgetest.Call) {
			if c.Method == http.MethodGet && c.Path == e.fl.apiBase+"/user" {
				<-release
			}
		})
		in := e.start(true)
		id := e.fake.AddComment(1, writer, "/recheck")
		code, body := in.send(e.commentDelivery(id, writer, "/recheck"))
		expectStatus(t, "writer /recheck, login unknown", code, body, http.StatusAccepted, `"queued"`)
		e.waitLog(`"msg":"recheck waits for the bot's login"`, 1)
		head := e.repo.head
		code, body = in.send(e.prDelivery(head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		calls := e.waitCalls("final status of head", e.finalStatus(head))
		e.assertCalls("a review while the /recheck waits", calls, e.reviewRun(head, 0, exp))
		if n := strings.Count(e.log.String(), `"msg":"recheck given up`); n != 0 {
			t.Errorf("%d rechecks given up, want 0", n)
		}
	})
}

// TestRecheckGivenUp: a /recheck whose login stays unknown longer than LoginRetry.GiveUp
// ends with a reply to its author, once, and nothing else.
func TestRecheckGivenUp(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, _ expectation) {
		e.loginRetry = server.LoginRetry{Recheck: 10 * time.Millisecond, GiveUp: time.Nanosecond}
		hold := make(chan struct{})
		var once sync.Once
		release := func() { once.Do(func() { close(hold) }) }
		defer release()
		e.fake.BeforeServe(func(c forgetest.Call) {
			if c.Method == http.MethodGet && c.Path == e.fl.apiBase+"/user" {
				<-hold
			}
		})
		in := e.start(true)
		id := e.fake.AddComment(1, writer, "/recheck")
		code, body := in.send(e.commentDelivery(id, writer, "/recheck"))
		expectStatus(t, "writer /recheck, login unknown", code, body, http.StatusAccepted, `"queued"`)
		reply := e.reply(id, "@"+writer+" /recheck not run: the bot's account is unknown (the forge did not answer GET /user for 1ns); push again or set --bot-login")
		calls := e.waitCalls("the reply", has(reply))
		e.assertCalls("given up", calls, []call{reply})
		e.waitLog(`"msg":"job finished"`, 1)
		release()
		in.stop()
		if n := checkQueueFile(t, e.dataDir); n != 0 {
			t.Errorf("%d jobs stored after the /recheck was given up, want 0", n)
		}
	})
}

// maxAttempts is the server's bound on the runs of one job.
const maxAttempts = 3

// countCalls is how many of calls are method path.
func countCalls(calls []forgetest.Call, method, path string) int {
	n := 0
	for _, c := range calls {
		if c.Method == method && c.Path == path {
			n++
		}
	}
	return n
}
