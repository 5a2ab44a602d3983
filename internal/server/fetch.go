package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/gitrepo"
)

// MirrorFetcher fetches a PR into the mirror of its repository: the PR's head ref
// (refs/pull/N/head, served by GitHub, Gitea and Forgejo alike, forks included) and the
// branches, which hold the base commit. A fetch that fails for a reason other than
// credentials or a missing commit is tried again after Backoff (default 1 s, 3 s).
type MirrorFetcher struct {
	Mirrors *gitrepo.Mirrors
	Backoff []time.Duration
}

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
	auth := gitrepo.Auth{User: user, Password: password}
	repo, err := f.Mirrors.Fetch(ctx, ev.Repo.CloneURL, auth, refspecs, ev.HeadSHA, ev.BaseSHA)
	backoff := f.Backoff
	if backoff == nil {
		backoff = []time.Duration{time.Second, 3 * time.Second}
	}
	for _, wait := range backoff {
		if err == nil || !transient(err) {
			break
		}
		select {
		case <-ctx.Done():
			return nil, zero, zero, err
		case <-time.After(wait):
		}
		repo, err = f.Mirrors.Fetch(ctx, ev.Repo.CloneURL, auth, refspecs, ev.HeadSHA, ev.BaseSHA)
	}
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

// transient reports whether a fetch error may pass on its own: not refused credentials, not
// a commit missing after a successful fetch, not a cancelled review.
func transient(err error) bool {
	switch {
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	}
	var missing *gitrepo.MissingCommitsError
	return !errors.As(err, &missing)
}
