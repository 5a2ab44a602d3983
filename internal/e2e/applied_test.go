package e2e

import (
	"net/http"
	"testing"
	"time"
)

// TestAppliedWriteNotRepeated: the forge carries out the summary comment, the line-comment
// review and a refusal reply, and each answer is lost: the connection is reset before any
// answer, or none comes until the attempt timeout. The client does not repeat such a
// write blindly: it looks for what the write would have made (the bot's summary with this
// head's marker, the bot's review on the commit, the reply naming the comment), finds it
// and goes on. Each is on the PR once. Before, the retrying transport posted each again:
// two summaries and two line reviews on one head, two replies.
func TestAppliedWriteNotRepeated(t *testing.T) {
	for _, fault := range []string{"reset", "hang"} {
		t.Run(fault, func(t *testing.T) {
			eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, exp expectation) {
				e.retry.AttemptTimeout = 2 * time.Second
				applyLost := e.fake.ResetAfterNext
				if fault == "hang" {
					applyLost = e.fake.HangAfterNext
				}
				head := e.repo.head
				api := e.fl.apiBase + e.repoPath()
				comments := api + "/issues/1/comments"
				e.fake.PassNext(comments) // the list
				applyLost(comments)       // the summary's create
				applyLost(api + "/pulls/1/reviews")
				in := e.start(true)
				e.waitLog(`"msg":"the bot's accounts"`, 1)
				code, body := in.send(e.prDelivery(head, ""))
				expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
				calls := e.waitCalls("final status of head", e.finalStatus(head))
				var want []call
				for _, c := range e.reviewRun(head, 0, exp) {
					want = append(want, c)
					switch c.Op {
					case e.createSummary("").Op: // then looked for
						want = append(want, e.listComments())
					case e.review(head, nil).Op:
						want = append(want, call{Op: "GET " + e.repoPath() + "/pulls/1/reviews"})
					}
				}
				e.assertCalls("a review whose summary and line review were applied unanswered", calls, want)
				e.summary() // exactly one
				if n := e.fake.Reviews(1); n != 1 {
					t.Errorf("%d line-comment reviews on the PR, want 1", n)
				}

				e.fake.ResetCalls()
				id := e.fake.AddComment(1, reader, "/recheck")
				applyLost(comments) // the reply
				code, body = in.send(e.commentDelivery(id, reader, "/recheck"))
				expectStatus(t, "reader /recheck", code, body, http.StatusAccepted, `"queued"`)
				e.waitLog(`"msg":"job finished"`, 2)
				refusal := e.reply(id, "@"+reader+" only users with write access can /recheck")
				e.assertCalls("a refusal applied unanswered", e.fake.Calls(),
					[]call{e.permission(reader), refusal, e.listComments()})
				replies := 0
				for _, c := range e.fake.Comments(1) {
					if c.Author == e.fl.botLogin && c.ID != e.summary().ID {
						replies++
					}
				}
				if replies != 1 {
					t.Errorf("%d replies by the bot on the PR, want 1", replies)
				}
			})
		})
	}
}
