package forge

import (
	"context"
	"fmt"
	"net/http"

	"github.com/google/go-github/v66/github"
)

// githubClient is a Client for one token or App installation.
type githubClient struct {
	gh      *github.Client
	clients *GitHubClients
	token   func(context.Context) (string, error)
}

func (c *githubClient) SetStatus(ctx context.Context, repo Repo, sha string, state State, description string) error {
	st, _, err := c.gh.Repositories.CreateStatus(ctx, repo.Owner, repo.Name, sha, &github.RepoStatus{
		State:       ptr(string(state)),
		Description: ptr(shorten(description, statusDescriptionMax)),
		Context:     ptr(StatusContext),
	})
	if err != nil {
		return fmt.Errorf("github: set status of %s@%s: %w", repo.FullName(), sha, err)
	}
	c.clients.learnIdentity(st.GetCreator().GetLogin())
	return nil
}

func (c *githubClient) UpsertSummary(ctx context.Context, repo Repo, pr int, body string) error {
	me, err := c.clients.identity(ctx, c.gh)
	if err != nil {
		return fmt.Errorf("github: summary of %s#%d: %w", repo.FullName(), pr, err)
	}
	return upsertSummary(ctx, summaryAPI{forge: "github", repo: repo, pr: pr,
		find: func(ctx context.Context) ([]summaryComment, error) { return c.findSummaries(ctx, repo, pr, me) },
		create: func(ctx context.Context, body string) error {
			_, _, err := c.gh.Issues.CreateComment(ctx, repo.Owner, repo.Name, pr, &github.IssueComment{Body: &body})
			return err
		},
		edit: func(ctx context.Context, id int64, body string) error {
			_, _, err := c.gh.Issues.EditComment(ctx, repo.Owner, repo.Name, id, &github.IssueComment{Body: &body})
			return err
		},
		remove: func(ctx context.Context, id int64) (int, error) {
			resp, err := c.gh.Issues.DeleteComment(ctx, repo.Owner, repo.Name, id)
			if resp == nil {
				return 0, err
			}
			return resp.StatusCode, err
		},
	}, body, me)
}

// findSummaries returns the marker comments by me, in the order the forge lists them.
func (c *githubClient) findSummaries(ctx context.Context, repo Repo, pr int, me string) ([]summaryComment, error) {
	var out []summaryComment
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		comments, resp, err := c.gh.Issues.ListComments(ctx, repo.Owner, repo.Name, pr, opts)
		if err != nil {
			return nil, err
		}
		for _, cm := range comments {
			if isSummary(cm.GetBody(), cm.GetUser().GetLogin(), cm.GetUser().GetType() == "Bot", me) {
				out = append(out, summaryComment{id: cm.GetID(), body: cm.GetBody()})
			}
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

func (c *githubClient) ChangedLines(ctx context.Context, repo Repo, pr int) (map[string]map[int]bool, error) {
	out := map[string]map[int]bool{}
	opts := &github.ListOptions{PerPage: 100}
	for {
		files, resp, err := c.gh.PullRequests.ListFiles(ctx, repo.Owner, repo.Name, pr, opts)
		if err != nil {
			return nil, fmt.Errorf("github: files of %s#%d: %w", repo.FullName(), pr, err)
		}
		for _, f := range files {
			lines := map[int]bool{}
			if err := hunkLines(f.GetPatch(), lines); err != nil {
				return nil, fmt.Errorf("github: patch of %s in %s#%d: %w", f.GetFilename(), repo.FullName(), pr, err)
			}
			if len(lines) > 0 { // binary, too large, or deleted: nothing to comment on
				out[f.GetFilename()] = lines
			}
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

func (c *githubClient) PostReview(ctx context.Context, repo Repo, pr int, sha string, comments []LineComment) error {
	if len(comments) == 0 {
		return nil
	}
	review := &github.PullRequestReviewRequest{
		CommitID: ptr(sha),
		Event:    ptr("COMMENT"),
		Body:     ptr(reviewBody(len(comments), sha)),
	}
	for _, lc := range comments {
		review.Comments = append(review.Comments, &github.DraftReviewComment{
			Path: ptr(lc.Path), Line: ptr(lc.Line), Side: ptr("RIGHT"), Body: ptr(lc.Body),
		})
	}
	err := writeOnce(ctx, func(ctx context.Context) error {
		_, _, err := c.gh.PullRequests.CreateReview(ctx, repo.Owner, repo.Name, pr, review)
		return err
	}, func(ctx context.Context) (bool, error) { return c.HasReview(ctx, repo, pr, sha) })
	if err != nil {
		return fmt.Errorf("github: review of %s#%d: %w", repo.FullName(), pr, err)
	}
	return nil
}

func (c *githubClient) CanWrite(ctx context.Context, repo Repo, user string) (bool, error) {
	p, resp, err := c.gh.Repositories.GetPermissionLevel(ctx, repo.Owner, repo.Name, user)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return false, nil // no such user
	}
	if err != nil {
		return false, fmt.Errorf("github: permission of %s on %s: %w", user, repo.FullName(), err)
	}
	for _, level := range []string{p.GetPermission(), p.GetRoleName()} {
		switch level {
		case "admin", "maintain", "write":
			return true, nil
		}
	}
	return false, nil
}

func (c *githubClient) React(ctx context.Context, repo Repo, commentID int64, reaction string) error {
	if _, _, err := c.gh.Reactions.CreateIssueCommentReaction(ctx, repo.Owner, repo.Name, commentID, reaction); err != nil {
		return fmt.Errorf("github: react to comment %d in %s: %w", commentID, repo.FullName(), err)
	}
	return nil
}

func (c *githubClient) Reply(ctx context.Context, repo Repo, pr int, body string) error {
	post := func(ctx context.Context) error {
		_, _, err := c.gh.Issues.CreateComment(ctx, repo.Owner, repo.Name, pr, &github.IssueComment{Body: &body})
		return err
	}
	err := replyOnce(ctx, body, post, func(ctx context.Context, marker string) (bool, error) { return c.HasReply(ctx, repo, pr, marker) })
	if err != nil {
		return fmt.Errorf("github: reply on %s#%d: %w", repo.FullName(), pr, err)
	}
	return nil
}

func (c *githubClient) PullRequest(ctx context.Context, repo Repo, pr int) (*PullRequest, error) {
	p, _, err := c.gh.PullRequests.Get(ctx, repo.Owner, repo.Name, pr)
	if err != nil {
		return nil, fmt.Errorf("github: read %s#%d: %w", repo.FullName(), pr, err)
	}
	return &PullRequest{HeadSHA: p.GetHead().GetSHA(), BaseSHA: p.GetBase().GetSHA(), Fork: githubFork(p)}, nil
}

// CloneAuth: GitHub takes any user name with a token; "x-access-token" is the convention.
func (c *githubClient) CloneAuth(ctx context.Context, repo Repo) (string, string, error) {
	token, err := c.token(ctx)
	if err != nil {
		return "", "", fmt.Errorf("github: clone token for %s: %w", repo.FullName(), err)
	}
	return "x-access-token", token, nil
}
