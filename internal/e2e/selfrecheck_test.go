package e2e

import (
	"net/http"
	"testing"

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
