package forge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/go-github/v66/github"
)

// GitHubOptions configures GitHub access: a token, or a GitHub App (AppID + AppKeyPEM)
// whose installation comes from each delivery.
type GitHubOptions struct {
	// APIURL is the REST API root; GitHub Enterprise Server is https://HOST/api/v3/.
	APIURL    string
	Token     string
	AppID     int64
	AppKeyPEM []byte
	// HTTPClient supplies the base transport (nil: http.DefaultTransport). Its Timeout
	// spans retries too.
	HTTPClient *http.Client
	Retry      RetryOptions
}

// GitHubClients hands out a Client per App installation (one for token auth).
type GitHubClients struct {
	opts GitHubOptions
	base *url.URL
	rt   http.RoundTripper // retrying, unauthenticated

	mu      sync.Mutex
	clients map[int64]Client
	login   *string // the identity that writes comments, once known
}

// NewGitHub checks opts; it makes no request.
func NewGitHub(opts GitHubOptions) (*GitHubClients, error) {
	if (opts.Token == "") == (opts.AppID == 0) {
		return nil, errors.New("github: set either a token or an App id and key")
	}
	if opts.AppID != 0 && len(opts.AppKeyPEM) == 0 {
		return nil, errors.New("github: App auth needs the App's private key")
	}
	if opts.APIURL == "" {
		opts.APIURL = "https://api.github.com/"
	}
	base, err := url.Parse(opts.APIURL)
	if err != nil || base.Host == "" {
		return nil, fmt.Errorf("github: bad API URL %q", opts.APIURL)
	}
	if !strings.HasSuffix(base.Path, "/") {
		base.Path += "/"
	}
	var next http.RoundTripper
	if opts.HTTPClient != nil {
		next = opts.HTTPClient.Transport
	}
	if opts.AppID != 0 {
		if _, err := ghinstallation.NewAppsTransport(next, opts.AppID, opts.AppKeyPEM); err != nil {
			return nil, fmt.Errorf("github: App key: %w", err)
		}
	}
	return &GitHubClients{opts: opts, base: base, rt: newRetryTransport(GitHub, next, opts.Retry),
		clients: map[int64]Client{}}, nil
}

// For returns the Client of an App installation; with token auth installationID is
// ignored. Clients are cached.
func (g *GitHubClients) For(installationID int64) (Client, error) {
	if g.opts.Token != "" {
		installationID = 0
	} else if installationID <= 0 {
		return nil, errors.New("github: App auth needs the installation id of the delivery")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if c, ok := g.clients[installationID]; ok {
		return c, nil
	}
	c, err := g.newClient(installationID)
	if err != nil {
		return nil, err
	}
	g.clients[installationID] = c
	return c, nil
}

func (g *GitHubClients) newClient(installationID int64) (Client, error) {
	if g.opts.Token != "" {
		gh := g.api(g.rt).WithAuthToken(g.opts.Token)
		gh.BaseURL = g.base
		token := g.opts.Token
		return &githubClient{gh: gh, clients: g, token: func(context.Context) (string, error) { return token, nil }}, nil
	}
	// Each installation gets its own Apps transport: ghinstallation writes to it on refresh.
	itr, err := ghinstallation.New(g.rt, g.opts.AppID, installationID, g.opts.AppKeyPEM)
	if err != nil {
		return nil, fmt.Errorf("github: installation %d: %w", installationID, err)
	}
	itr.BaseURL = strings.TrimSuffix(g.base.String(), "/")
	return &githubAppClient{githubClient{gh: g.api(itr), clients: g, token: itr.Token}}, nil
}

func (g *GitHubClients) api(rt http.RoundTripper) *github.Client {
	gh := github.NewClient(&http.Client{Transport: rt, Timeout: g.timeout()})
	gh.BaseURL = g.base
	return gh
}

func (g *GitHubClients) timeout() time.Duration {
	if g.opts.HTTPClient == nil {
		return 0
	}
	return g.opts.HTTPClient.Timeout
}

// identity returns the login that this bot's comments carry ("" when the forge refuses to
// tell, e.g. for an Actions token): a token's user, or "<app slug>[bot]". The answer is
// cached; a failure that may pass (5xx, transport error, timeout) is returned, not cached.
func (g *GitHubClients) identity(ctx context.Context, gh *github.Client) (string, error) {
	g.mu.Lock()
	known := g.login
	g.mu.Unlock()
	if known != nil {
		return *known, nil
	}
	login, err := g.lookupIdentity(ctx, gh)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		var er *github.ErrorResponse
		if !errors.As(err, &er) || er.Response == nil || !refusedIdentity(er.Response.StatusCode) {
			// A 5xx, a timeout, a reset: not known yet, asked again next time.
			return "", fmt.Errorf("github: read the bot's account: %w", err)
		}
		login = "" // the forge does not tell (an Actions token): match on the marker alone
	}
	g.mu.Lock()
	g.login = &login
	g.mu.Unlock()
	return login, nil
}

// learnIdentity records login, the creator of a status these clients just created, as
// their identity when it is not known yet: GitHub sets a status's creator to the
// authenticated user (a token's user, an App's "<slug>[bot]"), the account identity asks
// GET /user or GET /app for. So a forge whose GET /user fails still tells which comments
// are the bot's. An empty login records nothing.
func (g *GitHubClients) learnIdentity(login string) {
	if login == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.login == nil {
		g.login = &login
	}
}

func (g *GitHubClients) lookupIdentity(ctx context.Context, gh *github.Client) (string, error) {
	if g.opts.Token != "" {
		u, _, err := gh.Users.Get(ctx, "")
		return u.GetLogin(), err
	}
	atr, err := ghinstallation.NewAppsTransport(g.rt, g.opts.AppID, g.opts.AppKeyPEM)
	if err != nil {
		return "", err
	}
	app, _, err := g.api(atr).Apps.Get(ctx, "")
	if err != nil {
		return "", err
	}
	if app.GetSlug() == "" {
		return "", errors.New("github: the App has no slug")
	}
	return app.GetSlug() + "[bot]", nil
}
