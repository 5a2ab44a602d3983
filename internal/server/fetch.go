package server

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/gitrepo"
)

// MirrorFetcher fetches a PR into the mirror of its repository: the PR's head ref
// (refs/pull/N/head, served by GitHub, Gitea and Forgejo alike, forks included) and the
// branches, which hold the base commit.
type MirrorFetcher struct{ Mirrors *gitrepo.Mirrors }

// Fetch implements Fetcher.
func (f MirrorFetcher) Fetch(ctx context.Context, ev forge.Event, client forge.Client) (*gitrepo.Repo, plumbing.Hash, plumbing.Hash, error) {
	var zero plumbing.Hash
	if !plumbing.IsHash(ev.HeadSHA) || !plumbing.IsHash(ev.BaseSHA) {
		return nil, zero, zero, fmt.Errorf("PR #%d of %s: head %q or base %q is not a commit sha", ev.PR, ev.Repo.FullName(), ev.HeadSHA, ev.BaseSHA)
	}
	user, password, err := client.CloneAuth(ctx, ev.Repo)
	if err != nil {
		return nil, zero, zero, fmt.Errorf("clone credentials for %s: %w", ev.Repo.FullName(), err)
	}
	refspecs := []string{
		fmt.Sprintf("+refs/pull/%d/head:refs/tiergate/pull/%d/head", ev.PR, ev.PR),
		"+refs/heads/*:refs/tiergate/heads/*",
	}
	repo, err := f.Mirrors.Fetch(ctx, ev.Repo.CloneURL, gitrepo.Auth{User: user, Password: password}, refspecs, ev.HeadSHA, ev.BaseSHA)
	if err != nil {
		return nil, zero, zero, err
	}
	head, base := plumbing.NewHash(ev.HeadSHA), plumbing.NewHash(ev.BaseSHA)
	mb, err := repo.MergeBase(base, head)
	if err != nil {
		return nil, zero, zero, err
	}
	return repo, mb, head, nil
}
