package forge_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// TestUpsertSummaryKeepsNewest: with three of the bot's marker comments on the PR (a crash
// between a create and its answer, two replicas) and two readers' comments carrying the
// marker, the summary edits the newest of the bot's and deletes the two older ones; the
// readers' comments stay as they were. A second upsert of the same body only lists the
// comments, and a delete answered 404 (another replica deleted it first) is no error.
func TestUpsertSummaryKeepsNewest(t *testing.T) {
	clients := tokenClients()
	for _, tc := range clients {
		t.Run(tc.name, func(t *testing.T) {
			srv, c, base := tc.new(t)
			ctx := context.Background()
			bot := forgetest.BotLogin
			reader1 := srv.AddComment(3, "alice", marker+"\nforged first")
			oldest := srv.AddComment(3, bot, marker+"\nfirst")
			reader2 := srv.AddComment(3, "bob", marker+"\nforged later")
			older := srv.AddComment(3, bot, marker+"\nsecond")
			newest := srv.AddComment(3, bot, marker+"\nthird")
			body := marker + "\nnew\n\n" + forge.HeadMarker(headSHA)
			srv.FailNext(fmt.Sprintf("%s/issues/comments/%d", base, older), http.StatusNotFound, nil)
			must(t, c.UpsertSummary(ctx, repo, 3, body))
			want := []string{
				"GET " + tc.user,
				"GET " + base + "/issues/3/comments",
				fmt.Sprintf("PATCH %s/issues/comments/%d", base, newest),
				fmt.Sprintf("DELETE %s/issues/comments/%d", base, oldest),
				fmt.Sprintf("DELETE %s/issues/comments/%d", base, older),
			}
			if d := cmp.Diff(want, paths(srv)); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
			wantComments := []forgetest.Comment{
				{ID: reader1, Author: "alice", Body: marker + "\nforged first"},
				{ID: reader2, Author: "bob", Body: marker + "\nforged later"},
				{ID: older, Author: bot, Body: marker + "\nsecond"}, // its delete was answered 404
				{ID: newest, Author: bot, Body: body},
			}
			if d := cmp.Diff(wantComments, srv.Comments(3)); d != "" {
				t.Errorf("comments (-want +got):\n%s", d)
			}

			srv.ResetCalls()
			must(t, c.UpsertSummary(ctx, repo, 3, body))
			want = []string{"GET " + base + "/issues/3/comments", fmt.Sprintf("DELETE %s/issues/comments/%d", base, older)}
			if d := cmp.Diff(want, paths(srv)); d != "" {
				t.Errorf("the same body again: calls (-want +got):\n%s", d)
			}
			wantComments = append(wantComments[:2], wantComments[3])
			if d := cmp.Diff(wantComments, srv.Comments(3)); d != "" {
				t.Errorf("comments after the second upsert (-want +got):\n%s", d)
			}
		})
	}
}

// TestUpsertSummaryDeleteFails: a delete of an older summary that the forge refuses (500
// on every attempt) fails the upsert, naming the comment; the newest was edited first.
func TestUpsertSummaryDeleteFails(t *testing.T) {
	srv, c, _ := newGitHubToken(t)
	oldest := srv.AddComment(3, forgetest.BotLogin, marker+"\nfirst")
	newest := srv.AddComment(3, forgetest.BotLogin, marker+"\nsecond")
	for range 20 {
		srv.FailNext(fmt.Sprintf("/repos/acme/fleet/issues/comments/%d", oldest), http.StatusInternalServerError, nil)
	}
	err := c.UpsertSummary(context.Background(), repo, 3, marker+"\nnew")
	want := fmt.Sprintf("github: delete older summary %d of acme/fleet#3: DELETE %s/repos/acme/fleet/issues/comments/%d: 500 injected fault []", oldest, srv.URL, oldest)
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
	if got := srv.Comments(3)[1]; got.ID != newest || got.Body != marker+"\nnew" {
		t.Errorf("newest summary %+v, want %d edited", got, newest)
	}
}
