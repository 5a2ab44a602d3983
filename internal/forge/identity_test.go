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

// TestIdentityFromStatusCreator: while GET /user fails (500 on every attempt), the creator
// of a status the client just set names the bot's account. The summary is then found by
// marker and author: a reader's marker comment is left alone, the bot's is edited. Before
// any status, the summary fails with the error of GET /user, naming it.
func TestIdentityFromStatusCreator(t *testing.T) {
	clients := tokenClients()
	for _, tc := range clients {
		t.Run(tc.name, func(t *testing.T) {
			srv, c, base := tc.new(t)
			for range 20 {
				srv.FailNext(tc.user, http.StatusInternalServerError, nil)
			}
			ctx := context.Background()
			if err := c.UpsertSummary(ctx, repo, 3, marker+"\nnew"); err == nil {
				t.Fatal("summary before any status while GET /user fails: no error")
			}
			srv.AddComment(3, "alice", marker+"\nnot mine")
			mine := srv.AddComment(3, forgetest.BotLogin, marker+"\nold")
			must(t, c.SetStatus(ctx, repo, headSHA, forge.StatePending, "reviewing"))
			srv.ResetCalls()
			must(t, c.UpsertSummary(ctx, repo, 3, marker+"\nnew"))
			got := paths(srv)
			want := []string{"GET " + base + "/issues/3/comments", fmt.Sprintf("PATCH %s/issues/comments/%d", base, mine)}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
			wantComments := []forgetest.Comment{{ID: mine - 1, Author: "alice", Body: marker + "\nnot mine"}, {ID: mine, Author: forgetest.BotLogin, Body: marker + "\nnew"}}
			if d := cmp.Diff(wantComments, srv.Comments(3)); d != "" {
				t.Errorf("comments (-want +got):\n%s", d)
			}
			login, err := c.(forge.Identifier).Login(ctx)
			if err != nil || login != forgetest.BotLogin {
				t.Errorf("Login = %q, %v; want %q", login, err, forgetest.BotLogin)
			}
		})
	}
}

// tokenClient is one forge's token-auth client on its fake, the path of its "who am I"
// request and the repository's API path.
type tokenClient struct {
	name, user string
	new        func(t *testing.T) (*forgetest.Server, forge.Client, string)
}

// tokenClients are the GitHub, Gitea and Forgejo token clients.
func tokenClients() []tokenClient {
	clients := []tokenClient{{"github", "/user", func(t *testing.T) (*forgetest.Server, forge.Client, string) {
		srv, c, _ := newGitHubToken(t)
		return srv, c, "/repos/acme/fleet"
	}}}
	for _, f := range giteaFakes {
		clients = append(clients, tokenClient{f.name, "/api/v1/user", func(t *testing.T) (*forgetest.Server, forge.Client, string) {
			srv := f.new(t)
			c, err := forge.NewGitea(srv.URL, forgetest.Token, nil, forge.RetryOptions{Sleep: (&sleeper{}).sleep})
			must(t, err)
			return srv, c, api
		}})
	}
	return clients
}
