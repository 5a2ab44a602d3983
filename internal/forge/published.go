package forge

import (
	"context"
	"fmt"
	"strings"

	"code.gitea.io/sdk/gitea"
	"github.com/google/go-github/v66/github"
)

// PublishedFinder is implemented by clients that can read back what this bot published on a
// head, so that a run resumed after a crash publishes nothing twice.
type PublishedFinder interface {
	// HeadStatus returns the newest status of context StatusContext on sha ("" when none).
	HeadStatus(ctx context.Context, repo Repo, sha string) (State, error)
	// HasReview reports whether the PR holds a review by this bot's account on commit sha
	// (told by the body reviewBody writes).
	HasReview(ctx context.Context, repo Repo, pr int, sha string) (bool, error)
}

// isOwnReview reports whether a review with body on commitID by author is this bot's
// review of sha: on sha, with the body reviewBody writes for sha (its prefix and
// ReviewMarker), and by the bot's account me, or, while me is unknown (the Action's
// token, which may not read its user), by an account the forge marks as a bot
// (authorIsBot). A person's review that starts like the bot's ("tiergate: looks fine")
// does not count, so it does not silence the bot's line review of the head.
func isOwnReview(body, author string, authorIsBot bool, commitID, me, sha string) bool {
	if commitID != sha || !strings.HasPrefix(body, reviewBodyPrefix) || !strings.Contains(body, ReviewMarker(sha)) {
		return false
	}
	if me == "" {
		return authorIsBot
	}
	return strings.EqualFold(author, me)
}

func (c *githubClient) HeadStatus(ctx context.Context, repo Repo, sha string) (State, error) {
	opts := &github.ListOptions{PerPage: 100}
	var newest *github.RepoStatus
	for {
		statuses, resp, err := c.gh.Repositories.ListStatuses(ctx, repo.Owner, repo.Name, sha, opts)
		if err != nil {
			return "", fmt.Errorf("github: statuses of %s@%s: %w", repo.FullName(), sha, err)
		}
		for _, s := range statuses {
			if s.GetContext() == StatusContext && (newest == nil || s.GetID() > newest.GetID()) {
				newest = s
			}
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return State(newest.GetState()), nil
}

func (c *githubClient) HasReview(ctx context.Context, repo Repo, pr int, sha string) (bool, error) {
	me, err := c.clients.identity(ctx, c.gh)
	if err != nil {
		return false, fmt.Errorf("github: reviews of %s#%d: %w", repo.FullName(), pr, err)
	}
	opts := &github.ListOptions{PerPage: 100}
	for {
		reviews, resp, err := c.gh.PullRequests.ListReviews(ctx, repo.Owner, repo.Name, pr, opts)
		if err != nil {
			return false, fmt.Errorf("github: reviews of %s#%d: %w", repo.FullName(), pr, err)
		}
		for _, r := range reviews {
			if isOwnReview(r.GetBody(), r.GetUser().GetLogin(), r.GetUser().GetType() == "Bot", r.GetCommitID(), me, sha) {
				return true, nil
			}
		}
		if resp.NextPage == 0 {
			return false, nil
		}
		opts.Page = resp.NextPage
	}
}

func (c *giteaClient) HeadStatus(ctx context.Context, repo Repo, sha string) (State, error) {
	api := c.api(ctx)
	var newest *gitea.Status
	for page := 1; ; page++ {
		statuses, _, err := api.ListStatuses(repo.Owner, repo.Name, sha, gitea.ListStatusesOption{ListOptions: gitea.ListOptions{Page: page, PageSize: 50}})
		if err != nil {
			return "", fmt.Errorf("gitea: statuses of %s@%s: %w", repo.FullName(), sha, err)
		}
		for _, s := range statuses {
			if s.Context == StatusContext && (newest == nil || s.ID > newest.ID) {
				newest = s
			}
		}
		if len(statuses) < 50 {
			break
		}
	}
	if newest == nil {
		return "", nil
	}
	return State(newest.State), nil
}

func (c *giteaClient) HasReview(ctx context.Context, repo Repo, pr int, sha string) (bool, error) {
	me, err := c.identity(ctx)
	if err != nil {
		return false, fmt.Errorf("gitea: reviews of %s#%d: %w", repo.FullName(), pr, err)
	}
	api := c.api(ctx)
	for page := 1; ; page++ {
		reviews, _, err := api.ListPullReviews(repo.Owner, repo.Name, int64(pr), gitea.ListPullReviewsOptions{ListOptions: gitea.ListOptions{Page: page, PageSize: 50}})
		if err != nil {
			return false, fmt.Errorf("gitea: reviews of %s#%d: %w", repo.FullName(), pr, err)
		}
		for _, r := range reviews {
			author := ""
			if r.Reviewer != nil {
				author = r.Reviewer.UserName
			}
			// Gitea and Forgejo mark no bots: while the account is unknown, the marker of
			// sha is what tells the bot's review.
			if isOwnReview(r.Body, author, me == "", r.CommitID, me, sha) {
				return true, nil
			}
		}
		if len(reviews) < 50 {
			return false, nil
		}
	}
}
