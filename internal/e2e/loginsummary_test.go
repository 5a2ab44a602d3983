package e2e

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// TestSummaryWhileLoginUnknown: the forge's GET /user fails (500) on every attempt and no
// --bot-login is set. A review still publishes: the pending status's creator, as the forge
// answers it, names the bot's account, so the summary is created once and edited in place
// on the next push, and a marker comment a reader posted first is never edited.
func TestSummaryWhileLoginUnknown(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, exp expectation) {
		head, head2 := e.repo.head, e.repo.head2
		e.retry = forge.RetryOptions{MaxRetries: 1}
		for range 40 {
			e.fake.FailNext("/user", http.StatusInternalServerError, nil)
		}
		forged := summaryMarker + "\nforged by a reader"
		forgedID := e.fake.AddComment(1, reader, forged)
		in := e.start(true)
		e.waitLog(`"msg":"the bot's accounts","logins":{}`, 1)
		code, body := in.send(e.prDelivery(head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		calls := e.waitCalls("final status of head", e.finalStatus(head))
		e.assertCalls("opened, GET /user failing", calls, e.reviewRun(head, 0, exp))

		ours := e.botSummaries()
		if len(ours) != 1 {
			t.Fatalf("%d summary comments by the bot, want 1: %+v", len(ours), ours)
		}
		e.fake.ResetCalls()
		e.pushHead2()
		code, body = in.send(e.prDelivery(head2, head))
		expectStatus(t, "synchronize", code, body, http.StatusAccepted, `"queued"`)
		calls = e.waitCalls("final status of head2", e.finalStatus(head2))
		e.assertCalls("synchronize, GET /user failing", calls, e.reviewRun(head2, ours[0].ID, exp))
		if got := e.botSummaries(); len(got) != 1 || got[0].ID != ours[0].ID {
			t.Errorf("summary comments by the bot after the push: %+v, want only %d (edited)", got, ours[0].ID)
		}
		want := forgetest.Comment{ID: forgedID, Author: reader, Body: forged}
		var got forgetest.Comment
		for _, c := range e.fake.Comments(1) {
			if c.ID == forgedID {
				got = c
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("the reader's marker comment (-want +got):\n%s", d)
		}
		if n := countCalls(e.fake.Calls(), "GET", e.fl.apiBase+"/user"); n != 0 {
			t.Errorf("GET /user asked %d times during the second review, want 0 (the login is known)", n)
		}
	})
}

// botSummaries are the PR's marker comments written by the bot's account.
func (e *env) botSummaries() []forgetest.Comment {
	var out []forgetest.Comment
	for _, c := range e.fake.Comments(1) {
		if c.Author == e.fl.botLogin && len(c.Body) >= len(summaryMarker) && c.Body[:len(summaryMarker)] == summaryMarker {
			out = append(out, c)
		}
	}
	return out
}
