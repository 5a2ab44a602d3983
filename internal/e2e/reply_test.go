package e2e

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// TestRefusalRepliedOnce: a reader's /recheck is answered with a reply; the forge posts it but
// its answer never comes, and the process is stopped there (SIGKILL of a server process, or a
// shutdown as on SIGTERM). The next process runs the job again: it finds the reply, marked
// with the comment's id, among the PR's comments and posts none. Asserted exactly: the
// second process's calls, and one reply on the PR.
func TestRefusalRepliedOnce(t *testing.T) {
	for _, how := range []string{"kill", "sigterm"} {
		t.Run(how, func(t *testing.T) {
			eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, _ expectation) {
				comments := e.repoPath() + "/issues/1/comments"
				e.fake.HangAfterNext(comments)
				id := e.fake.AddComment(1, reader, "/recheck")
				d := e.commentDelivery(id, reader, "/recheck")
				refusal := e.reply(id, "@"+reader+" only users with write access can /recheck")
				if how == "kill" {
					c := e.startChild(true)
					if code, err := c.send(d); err != nil || code != http.StatusAccepted {
						t.Fatalf("reader /recheck: %d %v, want 202", code, err)
					}
					e.waitCalls("the reply", has(refusal))
					c.kill()
				} else {
					in := e.start(true)
					// The login known first: a /recheck that waits for it is put back, and
					// the stop would then find no reply in flight.
					e.waitLog(`"msg":"the bot's accounts"`, 1)
					code, body := in.send(d)
					expectStatus(t, "reader /recheck", code, body, http.StatusAccepted, `"queued"`)
					e.waitCalls("the reply", has(refusal))
					in.stop()
				}
				if n := checkQueueFile(t, e.dataDir); n != 1 {
					t.Fatalf("%d jobs stored after the stop, want 1", n)
				}
				e.fake.ResetCalls()
				in := e.start(true)
				e.waitLog(`"msg":"job finished"`, 1)
				in.stop()
				e.assertCalls("the run after the restart", e.fake.Calls(),
					[]call{e.permission(reader), {Op: "GET " + comments}})
				var replies []forgetest.Comment
				for _, c := range e.fake.Comments(1) {
					if c.ID != id {
						replies = append(replies, forgetest.Comment{Author: c.Author, Body: c.Body})
					}
				}
				want := []forgetest.Comment{{Author: e.fl.botLogin,
					Body: fmt.Sprintf("@%s only users with write access can /recheck\n\n<!-- tiergate reply to comment %d -->", reader, id)}}
				if diff := cmp.Diff(want, replies); diff != "" {
					t.Errorf("replies on the PR (-want +got):\n%s", diff)
				}
			})
		})
	}
}
