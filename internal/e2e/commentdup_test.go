package e2e

import (
	"net/http"
	"testing"
)

// TestCommentDeliveredTwice: one PR comment is delivered twice with two delivery ids (the
// same hook on the organisation and on the repository). A reader's /recheck is answered
// once; a writer's, delivered again after its review ended, runs one review. The second
// delivery of each is answered 200 "duplicate", the comment's id recorded with the
// delivery ids, so it holds across a restart too. Before, each delivery ran: two refusal
// replies, two reviews.
func TestCommentDeliveredTwice(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, exp expectation) {
		head := e.repo.head
		in := e.start(true)
		e.waitLog(`"msg":"the bot's accounts"`, 1)
		code, body := in.send(e.prDelivery(head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		e.waitCalls("final status of head", e.finalStatus(head))
		e.waitLog(`"msg":"job finished"`, 1)
		summary := e.summary()

		e.fake.ResetCalls()
		readerID := e.fake.AddComment(1, reader, "/recheck")
		code, body = in.send(e.commentDelivery(readerID, reader, "/recheck"))
		expectStatus(t, "reader /recheck", code, body, http.StatusAccepted, `"queued"`)
		code, body = in.send(e.commentDelivery(readerID, reader, "/recheck"))
		expectStatus(t, "reader /recheck, other delivery id", code, body, http.StatusOK, `"duplicate"`)
		refusal := e.reply(readerID, "@"+reader+" only users with write access can /recheck")
		e.waitCalls("the reply", has(refusal))
		e.waitLog(`"msg":"job finished"`, 2)

		writerID := e.fake.AddComment(1, writer, "/recheck")
		code, body = in.send(e.commentDelivery(writerID, writer, "/recheck"))
		expectStatus(t, "writer /recheck", code, body, http.StatusAccepted, `"queued"`)
		e.waitCalls("final status of the recheck", has(e.status(head, exp.finalState(), cdiDescription)))
		e.waitLog(`"msg":"job finished"`, 4) // the /recheck and the review it queued
		code, body = in.send(e.commentDelivery(writerID, writer, "/recheck"))
		expectStatus(t, "writer /recheck, other delivery id", code, body, http.StatusOK, `"duplicate"`)
		in.stop()

		// After a restart too.
		again := e.start(true)
		code, body = again.send(e.commentDelivery(writerID, writer, "/recheck"))
		expectStatus(t, "writer /recheck after a restart", code, body, http.StatusOK, `"duplicate"`)
		again.stop()

		want := []call{e.permission(reader), refusal, e.permission(writer), e.reaction(writerID, "+1"), e.getPR()}
		want = append(want, e.reviewRerun(head, summary.ID, exp)...)
		e.assertCalls("a reader's and a writer's /recheck, each delivered twice", e.fake.Calls(), want)
	})
}
