package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// TestDuplicateSummaries: the PR holds two summary comments by the bot (a crash between a
// create and the record of it, or two replicas) and a reader's comment that opens with the
// marker. The review edits the newest of the bot's, deletes the older one and leaves the
// reader's as it was. Before, the oldest was edited and the other stayed.
func TestDuplicateSummaries(t *testing.T) {
	eachForge(t, []flavour{github, gitea, forgejo}, func(t *testing.T, e *env, exp expectation) {
		head := e.repo.head
		forged := summaryMarker + "\nforged by a reader"
		readerID := e.fake.AddComment(1, reader, forged)
		older := e.fake.AddComment(1, e.fl.botLogin, summaryMarker+"\nan earlier review")
		newest := e.fake.AddComment(1, e.fl.botLogin, summaryMarker+"\nthe same review, posted twice")
		in := e.start(true)
		code, body := in.send(e.prDelivery(head, ""))
		expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
		calls := e.waitCalls("final status of head", e.finalStatus(head))
		run := e.reviewRun(head, newest, exp)
		want := append(append(run[:4:4], e.deleteComment(older)), run[4:]...)
		e.assertCalls("a review with two summaries", calls, want)
		comments := e.fake.Comments(1)
		if len(comments) != 2 {
			t.Fatalf("comments after the review: %+v, want the reader's and the summary", comments)
		}
		if d := cmp.Diff(forgetest.Comment{ID: readerID, Author: reader, Body: forged}, comments[0]); d != "" {
			t.Errorf("the reader's marker comment (-want +got):\n%s", d)
		}
		if got := comments[1]; got.ID != newest || !strings.HasSuffix(got.Body, "\n\n"+forge.HeadMarker(head)) {
			t.Errorf("summary %d ending %q, want %d ending with head's marker", got.ID, got.Body[max(0, len(got.Body)-60):], newest)
		}
	})
}

// deleteComment is the bot's delete of its comment id.
func (e *env) deleteComment(id int64) call {
	return call{Op: fmt.Sprintf("DELETE %s/issues/comments/%d", e.repoPath(), id)}
}
