package forge_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// TestLoginNotCachedOnFailure: a GET /user that fails on every attempt (500) is an error and
// is asked again next time, when it answers; a 403 (the forge refuses to tell) is the
// answer "", kept. GitHub token, Gitea and Forgejo.
func TestLoginNotCachedOnFailure(t *testing.T) {
	ctx := context.Background()
	retry := forge.RetryOptions{MaxRetries: 1, Sleep: func(context.Context, time.Duration) error { return nil }}
	for _, tc := range []struct {
		name   string
		fake   func(testing.TB) *forgetest.Server
		client func(url string) (forge.Identifier, error)
	}{
		{"github", forgetest.NewGitHub, func(url string) (forge.Identifier, error) {
			return forge.NewGitHub(forge.GitHubOptions{APIURL: url + "/", Token: forgetest.Token, Retry: retry})
		}},
		{"gitea", forgetest.NewGitea, func(url string) (forge.Identifier, error) {
			c, err := forge.NewGitea(url, forgetest.Token, nil, retry)
			if err != nil {
				return nil, err
			}
			return c.(forge.Identifier), nil
		}},
		{"forgejo", forgetest.NewForgejo, func(url string) (forge.Identifier, error) {
			c, err := forge.NewGitea(url, forgetest.Token, nil, retry)
			if err != nil {
				return nil, err
			}
			return c.(forge.Identifier), nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.fake(t)
			id, err := tc.client(srv.URL)
			must(t, err)
			user := "/user"
			srv.FailNext(user, http.StatusInternalServerError, nil)
			srv.FailNext(user, http.StatusInternalServerError, nil)
			if login, err := id.Login(ctx); err == nil {
				t.Fatalf("Login = %q, want an error after two 500s", login)
			}
			login, err := id.Login(ctx)
			if err != nil || login != forgetest.BotLogin {
				t.Fatalf("Login after the failure = %q, %v; want %q", login, err, forgetest.BotLogin)
			}

			srv2 := tc.fake(t)
			id2, err := tc.client(srv2.URL)
			must(t, err)
			srv2.FailNext("/user", http.StatusForbidden, nil)
			for range 2 {
				if login, err := id2.Login(ctx); err != nil || login != "" {
					t.Fatalf("Login after a 403 = %q, %v; want \"\", kept", login, err)
				}
			}
		})
	}
}
