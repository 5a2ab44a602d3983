package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/gittest"
)

// TestMirrorFetcher fetches a PR whose head exists only as refs/pull/7/head from a smart
// HTTP remote (git-http-backend), with the credentials of CloneAuth.
func TestMirrorFetcher(t *testing.T) {
	// A bare remote: main at base, the PR head only under refs/pull.
	src, base, head := demoRepoDir(t)
	root := t.TempDir()
	remote, err := git.PlainClone(filepath.Join(root, "fleet.git"), true, &git.CloneOptions{URL: src})
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range map[string]plumbing.Hash{"refs/heads/main": base, "refs/pull/7/head": head} {
		if err := remote.Storer.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(name), h)); err != nil {
			t.Fatal(err)
		}
	}
	if err := remote.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, "refs/heads/main")); err != nil {
		t.Fatal(err)
	}
	if err := remote.Storer.RemoveReference("refs/heads/master"); err != nil {
		t.Fatal(err)
	}

	backendHandler := gittest.Handler(t, root)
	failures := 2 // the first two requests get 503: the fetch is tried again
	var requests []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failures > 0 {
			failures--
			requests = append(requests, http.StatusServiceUnavailable)
			http.Error(w, "try later", http.StatusServiceUnavailable)
			return
		}
		requests = append(requests, http.StatusOK)
		if u, p, ok := r.BasicAuth(); !ok || u != "x-access-token" || p != "tok" {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			http.Error(w, "bad credentials", http.StatusUnauthorized)
			return
		}
		backendHandler.ServeHTTP(w, r)
	}))
	defer srv.Close()

	mirrors, err := gitrepo.NewMirrors(filepath.Join(t.TempDir(), "mirrors"))
	if err != nil {
		t.Fatal(err)
	}
	ev := forge.Event{Forge: forge.GitHub, PR: 7, HeadSHA: head.String(), BaseSHA: base.String(),
		Repo: forge.Repo{Owner: "acme", Name: "fleet", CloneURL: srv.URL + "/fleet.git"}}
	fetcher := MirrorFetcher{Mirrors: mirrors, Backoff: []time.Duration{time.Millisecond, time.Millisecond}}
	repo, mb, gotHead, err := fetcher.Fetch(context.Background(), ev, authClient{})
	if err != nil {
		t.Fatal(err)
	}
	// Two 503s (two attempts), then info/refs and upload-pack.
	if want := []int{503, 503, 200, 200}; !slices.Equal(requests, want) {
		t.Fatalf("git requests %v, want %v", requests, want)
	}
	if mb != base || gotHead != head {
		t.Fatalf("merge base %s head %s, want %s %s", mb, gotHead, base, head)
	}
	if got, err := repo.Resolve("refs/tiergate/pull/7/head"); err != nil || got != head {
		t.Fatalf("refs/tiergate/pull/7/head = %s (%v), want %s", got, err, head)
	}
}

// authClient is a forge client that only hands out clone credentials.
type authClient struct{ forge.Client }

func (authClient) CloneAuth(context.Context, forge.Repo) (string, string, error) {
	return "x-access-token", "tok", nil
}

func TestTransientFetchErrors(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{errors.New("fetch https://git.example/o/r: unexpected client error: 503"), true},
		{errors.New("dial tcp: connection refused"), true},
		{fmt.Errorf("fetch URL: %w", transport.ErrAuthenticationRequired), false},
		{fmt.Errorf("fetch URL: %w", transport.ErrAuthorizationFailed), false},
		{fmt.Errorf("fetch URL: %w", &gitrepo.MissingCommitsError{Commits: []string{"abc"}, RefSpecs: []string{"+refs/pull/1/head:refs/x"}}), false},
		{errors.New("fetch URL: commit abc not found after fetching +refs/pull/1/head:refs/x"), true}, // only the typed error says so
		{fmt.Errorf("fetch URL: %w", context.Canceled), false},
	}
	for _, tc := range cases {
		if got := transient(tc.err); got != tc.want {
			t.Errorf("transient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
