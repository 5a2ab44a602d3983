package forge

import (
	"context"
	"net/http"
)

// Identifier is implemented by clients that can tell the account they publish as, so that
// the bot ignores its own comments (a /recheck written with its token included).
type Identifier interface {
	// Login is the account's login ("" when the forge refuses to tell: 401, 403 or 404,
	// e.g. a token without the scope to read its user). An answer is cached; an error
	// (5xx after the retries, a transport error, ctx ending) is not, so the next call asks
	// again.
	Login(ctx context.Context) (string, error)
}

// refusedIdentity reports whether an HTTP status answering "who am I" is the forge's
// refusal to tell rather than a failure that may pass.
func refusedIdentity(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusNotFound
}

// Login is the account the clients publish as: the token's user (GET /user) or, for a
// GitHub App, "<app slug>[bot]" (GET /app).
func (g *GitHubClients) Login(ctx context.Context) (string, error) {
	gh := g.api(g.rt)
	if g.opts.Token != "" {
		gh = gh.WithAuthToken(g.opts.Token)
	}
	return g.identity(ctx, gh)
}

func (c *githubClient) Login(ctx context.Context) (string, error) {
	return c.clients.identity(ctx, c.gh)
}

func (c *giteaClient) Login(ctx context.Context) (string, error) { return c.identity(ctx) }
