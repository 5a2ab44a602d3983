package forge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"code.gitea.io/sdk/gitea"
)

// giteaClient is a Client for Gitea and Forgejo (same API), authenticated by a token.
type giteaClient struct {
	baseURL string
	token   string
	hc      *http.Client // retrying

	mu    sync.Mutex
	login *string // the token's user, once known
}

// NewGitea returns a Client for the Gitea or Forgejo at baseURL (the web root, without
// /api/v1). It makes no request: the server version is not probed, so the SDK assumes a
// current server. retry takes at most one RetryOptions.
func NewGitea(baseURL, token string, httpClient *http.Client, retry ...RetryOptions) (Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("gitea: bad base URL %q", baseURL)
	}
	if token == "" {
		return nil, errors.New("gitea: a token is required")
	}
	if len(retry) > 1 {
		return nil, errors.New("gitea: more than one RetryOptions")
	}
	var opts RetryOptions
	if len(retry) == 1 {
		opts = retry[0]
	}
	var next http.RoundTripper
	var timeout time.Duration
	if httpClient != nil {
		next, timeout = httpClient.Transport, httpClient.Timeout
	}
	hc := &http.Client{Transport: newRetryTransport(Gitea, next, opts), Timeout: timeout}
	return &giteaClient{baseURL: baseURL, token: token, hc: hc}, nil
}

// api returns an SDK client bound to ctx: the SDK holds one context per client, so each
// call gets its own (they are cheap: no request is made).
func (c *giteaClient) api(ctx context.Context) *gitea.Client {
	api, err := gitea.NewClient(c.baseURL, gitea.SetHTTPClient(c.hc), gitea.SetToken(c.token),
		gitea.SetContext(ctx), gitea.SetGiteaVersion(""))
	if err != nil { // the options above cannot fail
		panic(fmt.Sprintf("gitea: new SDK client: %v", err))
	}
	return api
}

// identity returns the token's user ("" when the forge refuses to tell, e.g. a token
// without the read:user scope); a failure that may pass is returned, not cached.
func (c *giteaClient) identity(ctx context.Context) (string, error) {
	c.mu.Lock()
	known := c.login
	c.mu.Unlock()
	if known != nil {
		return *known, nil
	}
	login := ""
	u, resp, err := c.api(ctx).GetMyUserInfo()
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	switch {
	case err == nil:
		login = u.UserName
	case resp == nil || !refusedIdentity(resp.StatusCode):
		// A 5xx, a timeout, a reset: not known yet, asked again next time.
		return "", fmt.Errorf("gitea: read the bot's account: %w", err)
	}
	c.mu.Lock()
	c.login = &login
	c.mu.Unlock()
	return login, nil
}

func (c *giteaClient) SetStatus(ctx context.Context, repo Repo, sha string, state State, description string) error {
	st, _, err := c.api(ctx).CreateStatus(repo.Owner, repo.Name, sha, gitea.CreateStatusOption{
		State: gitea.StatusState(state), Description: shorten(description, statusDescriptionMax), Context: StatusContext,
	})
	if err != nil {
		return fmt.Errorf("gitea: set status of %s@%s: %w", repo.FullName(), sha, err)
	}
	if st != nil && st.Creator != nil {
		c.learnIdentity(st.Creator.UserName)
	}
	return nil
}

// learnIdentity records login, the creator of a status just created, as the token's user
// when it is not known yet: Gitea and Forgejo create a status as the request's user
// (routers/api/v1/repo/status.go NewCommitStatus passes ctx.Doer) and return it as its
// creator, the account GET /user names. An empty login records nothing.
func (c *giteaClient) learnIdentity(login string) {
	if login == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.login == nil {
		c.login = &login
	}
}

func (c *giteaClient) UpsertSummary(ctx context.Context, repo Repo, pr int, body string) error {
	me, err := c.identity(ctx)
	if err != nil {
		return fmt.Errorf("gitea: summary of %s#%d: %w", repo.FullName(), pr, err)
	}
	api := c.api(ctx)
	return upsertSummary(ctx, summaryAPI{forge: "gitea", repo: repo, pr: pr,
		find: func(ctx context.Context) ([]summaryComment, error) { return c.findSummaries(ctx, repo, pr, me) },
		create: func(ctx context.Context, body string) error {
			_, _, err := c.api(ctx).CreateIssueComment(repo.Owner, repo.Name, int64(pr), gitea.CreateIssueCommentOption{Body: body})
			return err
		},
		edit: func(_ context.Context, id int64, body string) error {
			_, _, err := api.EditIssueComment(repo.Owner, repo.Name, id, gitea.EditIssueCommentOption{Body: body})
			return err
		},
		remove: func(_ context.Context, id int64) (int, error) {
			resp, err := api.DeleteIssueComment(repo.Owner, repo.Name, id)
			if resp == nil {
				return 0, err
			}
			return resp.StatusCode, err
		},
	}, body, me)
}

// findSummaries returns the marker comments by me, in the order the forge lists them.
func (c *giteaClient) findSummaries(ctx context.Context, repo Repo, pr int, me string) ([]summaryComment, error) {
	// This endpoint is not paginated: it returns every comment.
	comments, _, err := c.api(ctx).ListIssueComments(repo.Owner, repo.Name, int64(pr), gitea.ListIssueCommentOptions{})
	if err != nil {
		return nil, err
	}
	var found []summaryComment
	for _, cm := range comments {
		author := ""
		if cm.Poster != nil {
			author = cm.Poster.UserName
		}
		if isSummary(cm.Body, author, false, me) { // Gitea marks no account as a bot
			found = append(found, summaryComment{id: cm.ID, body: cm.Body})
		}
	}
	return found, nil
}

func (c *giteaClient) ChangedLines(ctx context.Context, repo Repo, pr int) (map[string]map[int]bool, error) {
	diff, _, err := c.api(ctx).GetPullRequestDiff(repo.Owner, repo.Name, int64(pr), gitea.PullRequestDiffOptions{})
	if err != nil {
		return nil, fmt.Errorf("gitea: diff of %s#%d: %w", repo.FullName(), pr, err)
	}
	lines, err := diffLines(string(diff))
	if err != nil {
		return nil, fmt.Errorf("gitea: diff of %s#%d: %w", repo.FullName(), pr, err)
	}
	return lines, nil
}

func (c *giteaClient) PostReview(ctx context.Context, repo Repo, pr int, sha string, comments []LineComment) error {
	if len(comments) == 0 {
		return nil
	}
	opt := gitea.CreatePullReviewOptions{State: gitea.ReviewStateComment, Body: reviewBody(len(comments), sha), CommitID: sha}
	for _, lc := range comments {
		opt.Comments = append(opt.Comments, gitea.CreatePullReviewComment{Path: lc.Path, Body: lc.Body, NewLineNum: int64(lc.Line)})
	}
	err := writeOnce(ctx, func(ctx context.Context) error {
		_, _, err := c.api(ctx).CreatePullReview(repo.Owner, repo.Name, int64(pr), opt)
		return err
	}, func(ctx context.Context) (bool, error) { return c.HasReview(ctx, repo, pr, sha) })
	if err != nil {
		return fmt.Errorf("gitea: review of %s#%d: %w", repo.FullName(), pr, err)
	}
	return nil
}

// CanWrite needs a token of a repository admin to ask about other users.
func (c *giteaClient) CanWrite(ctx context.Context, repo Repo, user string) (bool, error) {
	p, resp, err := c.api(ctx).CollaboratorPermission(repo.Owner, repo.Name, user)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return false, nil // no such user
	}
	if err != nil {
		return false, fmt.Errorf("gitea: permission of %s on %s: %w", user, repo.FullName(), err)
	}
	switch p.Permission {
	case gitea.AccessModeAdmin, gitea.AccessModeOwner, gitea.AccessModeWrite:
		return true, nil
	}
	return false, nil
}

func (c *giteaClient) React(ctx context.Context, repo Repo, commentID int64, reaction string) error {
	if _, _, err := c.api(ctx).PostIssueCommentReaction(repo.Owner, repo.Name, commentID, reaction); err != nil {
		return fmt.Errorf("gitea: react to comment %d in %s: %w", commentID, repo.FullName(), err)
	}
	return nil
}

func (c *giteaClient) Reply(ctx context.Context, repo Repo, pr int, body string) error {
	post := func(ctx context.Context) error {
		_, _, err := c.api(ctx).CreateIssueComment(repo.Owner, repo.Name, int64(pr), gitea.CreateIssueCommentOption{Body: body})
		return err
	}
	err := replyOnce(ctx, body, post, func(ctx context.Context, marker string) (bool, error) { return c.HasReply(ctx, repo, pr, marker) })
	if err != nil {
		return fmt.Errorf("gitea: reply on %s#%d: %w", repo.FullName(), pr, err)
	}
	return nil
}

func (c *giteaClient) PullRequest(ctx context.Context, repo Repo, pr int) (*PullRequest, error) {
	p, _, err := c.api(ctx).GetPullRequest(repo.Owner, repo.Name, int64(pr))
	if err != nil {
		return nil, fmt.Errorf("gitea: read %s#%d: %w", repo.FullName(), pr, err)
	}
	out := &PullRequest{Fork: giteaFork(p)}
	if p.Head != nil {
		out.HeadSHA = p.Head.Sha
	}
	if p.Base != nil {
		out.BaseSHA = p.Base.Sha
	}
	return out, nil
}

// cloneUser is the user name sent with the token over basic auth. Gitea and Forgejo ignore
// it: with a non-empty password that is not "x-oauth-basic", the password is the token and
// the user is the token's owner (services/auth/basic.go, (*Basic).Verify: authToken =
// passwd, then GetAccessTokenBySHA and GetUserByID(token.UID)). So cloning needs no
// GET /user, and a forge that fails to answer it does not stop a review.
const cloneUser = "tiergate"

// CloneAuth returns cloneUser and the token; it makes no request.
func (c *giteaClient) CloneAuth(context.Context, Repo) (string, string, error) {
	return cloneUser, c.token, nil
}
