package forge

import "context"

// Identifier is implemented by clients that can tell the account they publish as, so that
// the bot ignores its own comments (a /recheck written with its token included).
type Identifier interface {
	// Login is the account's login ("" when the forge does not tell, e.g. a token
	// without the scope to read its user); it is asked once and cached.
	Login(ctx context.Context) (string, error)
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
