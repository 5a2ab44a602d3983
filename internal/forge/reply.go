package forge

import (
	"context"
	"fmt"
	"strings"

	"code.gitea.io/sdk/gitea"
	"github.com/google/go-github/v66/github"
)

// ReplyMarker is the hidden last line of the bot's answer to comment id, by which a run
// resumed after a crash finds that it answered already.
func ReplyMarker(commentID int64) string {
	return fmt.Sprintf("<!-- tiergate reply to comment %d -->", commentID)
}

// ReplyFinder is implemented by clients that can look for the bot's answer to a comment.
type ReplyFinder interface {
	// HasReply reports whether the PR holds a comment by this bot's account that contains
	// marker (ReplyMarker). While the account is not known, a bot account's comment counts
	// on GitHub, and any author's on Gitea and Forgejo (they mark no bots): a comment that
	// plants the marker only silences the answer to its own /recheck.
	HasReply(ctx context.Context, repo Repo, pr int, marker string) (bool, error)
}

// isOwnReply reports whether a comment with body by author is this bot's reply with marker.
func isOwnReply(body, author string, authorIsBot bool, me, marker string) bool {
	if !strings.Contains(body, marker) {
		return false
	}
	if me == "" {
		return authorIsBot
	}
	return strings.EqualFold(author, me)
}

func (c *githubClient) HasReply(ctx context.Context, repo Repo, pr int, marker string) (bool, error) {
	me, err := c.clients.identity(ctx, c.gh)
	if err != nil {
		return false, fmt.Errorf("github: comments of %s#%d: %w", repo.FullName(), pr, err)
	}
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		comments, resp, err := c.gh.Issues.ListComments(ctx, repo.Owner, repo.Name, pr, opts)
		if err != nil {
			return false, fmt.Errorf("github: comments of %s#%d: %w", repo.FullName(), pr, err)
		}
		for _, cm := range comments {
			if isOwnReply(cm.GetBody(), cm.GetUser().GetLogin(), cm.GetUser().GetType() == "Bot", me, marker) {
				return true, nil
			}
		}
		if resp.NextPage == 0 {
			return false, nil
		}
		opts.Page = resp.NextPage
	}
}

func (c *giteaClient) HasReply(ctx context.Context, repo Repo, pr int, marker string) (bool, error) {
	me, err := c.identity(ctx)
	if err != nil {
		return false, fmt.Errorf("gitea: comments of %s#%d: %w", repo.FullName(), pr, err)
	}
	// This endpoint is not paginated: it returns every comment.
	comments, _, err := c.api(ctx).ListIssueComments(repo.Owner, repo.Name, int64(pr), gitea.ListIssueCommentOptions{})
	if err != nil {
		return false, fmt.Errorf("gitea: comments of %s#%d: %w", repo.FullName(), pr, err)
	}
	for _, cm := range comments {
		author := ""
		if cm.Poster != nil {
			author = cm.Poster.UserName
		}
		if isOwnReply(cm.Body, author, me == "", me, marker) {
			return true, nil
		}
	}
	return false, nil
}
