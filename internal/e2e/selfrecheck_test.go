package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// TestOwnRecheckIgnored: with token auth, a /recheck written by the token's own user (a
// User with write access, not marked a bot) is ignored at intake: the server learnt its
// login when it started. A reader's /recheck after it is answered, and is the only thing
// the forge sees.
func TestOwnRecheckIgnored(t *testing.T) {
	t.Parallel()
	for _, fl := range []flavour{github, gitea, forgejo} {
		t.Run(fl.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, fl, scenario)
			e.fake.SetPermission(forgetest.BotLogin, "write")
			in := e.start(true)
			e.waitLog(`"msg":"the bot's accounts"`, 1)
			own := e.fake.AddComment(1, forgetest.BotLogin, "/recheck")
			code, body := in.send(e.commentDelivery(own, forgetest.BotLogin, "/recheck"))
			expectStatus(t, "the bot's own /recheck", code, body, http.StatusAccepted, `"ignored"`)
			id := e.fake.AddComment(1, reader, "/recheck")
			code, body = in.send(e.commentDelivery(id, reader, "/recheck"))
			expectStatus(t, "reader /recheck", code, body, http.StatusAccepted, `"queued"`)
			refusal := e.reply("@" + reader + " only users with write access can /recheck")
			calls := e.waitCalls("reply to the reader", has(refusal))
			e.assertCalls("two /rechecks", calls, []call{e.permission(reader), refusal})
		})
	}
}

// TestOwnRecheckWhileLoginUnknown: the forge fails to tell the bot's account (GET /user, or
// GET /app for an App: 500 on every attempt) when the server starts and on each of the
// three runs of the bot's own /recheck: the /recheck is not run (no permission check, no
// reaction, no review), each run says so in the log, and the job ends. Once the forge
// answers, the next /recheck by the bot's account learns the login and is ignored, the
// one after is ignored at intake, and a reader's /recheck is answered. (A GitHub App's
// comments are by "<slug>[bot]", a Bot, ignored at intake without the login.)
func TestOwnRecheckWhileLoginUnknown(t *testing.T) {
	t.Parallel()
	for _, fl := range []flavour{github, gitea, forgejo} {
		t.Run(fl.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, fl, scenario)
			e.retry = forge.RetryOptions{MaxRetries: 1}
			self, who := fl.botLogin, "/user"
			e.fake.SetPermission(self, "write")
			for range 2 * (1 + maxAttempts) { // at start, then three runs; two attempts each
				e.fake.FailNext(who, http.StatusInternalServerError, nil)
			}
			in := e.start(true)
			e.waitLog(`"msg":"the bot's accounts","logins":{}`, 1)
			own := e.fake.AddComment(1, self, "/recheck")
			code, body := in.send(e.commentDelivery(own, self, "/recheck"))
			expectStatus(t, "the bot's own /recheck, login unknown", code, body, http.StatusAccepted, `"queued"`)
			e.waitLog(`"msg":"job finished"`, 1)
			if n := strings.Count(e.log.String(), `"msg":"recheck not run: the bot's login is unknown`); n != maxAttempts {
				t.Errorf("%d runs say the login is unknown, want %d", n, maxAttempts)
			}
			e.assertCalls("while the login is unknown", e.fake.Calls(), nil)

			own = e.fake.AddComment(1, self, "/recheck")
			code, body = in.send(e.commentDelivery(own, self, "/recheck"))
			expectStatus(t, "the bot's own /recheck, login learnt by its run", code, body, http.StatusAccepted, `"queued"`)
			e.waitLog(`"msg":"recheck by the bot's own account ignored"`, 1)
			own = e.fake.AddComment(1, self, "/recheck")
			code, body = in.send(e.commentDelivery(own, self, "/recheck"))
			expectStatus(t, "the bot's own /recheck, login known", code, body, http.StatusAccepted, `"ignored"`)
			id := e.fake.AddComment(1, reader, "/recheck")
			code, body = in.send(e.commentDelivery(id, reader, "/recheck"))
			expectStatus(t, "reader /recheck", code, body, http.StatusAccepted, `"queued"`)
			refusal := e.reply("@" + reader + " only users with write access can /recheck")
			calls := e.waitCalls("reply to the reader", has(refusal))
			e.assertCalls("after the login is learnt", calls, []call{e.permission(reader), refusal})
			if n := countCalls(e.fake.Calls(), "GET", e.fl.apiBase+who); n != 2*(1+maxAttempts)+1 {
				t.Errorf("%s asked %d times, want %d (2 attempts at start and in each of 3 runs, then one answered)", who, n, 2*(1+maxAttempts)+1)
			}
		})
	}
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
