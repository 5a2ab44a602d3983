package server

import (
	"context"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/gitrepo"
)

// TestMirrorFetcher fetches a PR whose head exists only as refs/pull/7/head from a smart
// HTTP remote (git-http-backend), with the credentials of CloneAuth.
func TestMirrorFetcher(t *testing.T) {
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skipf("git is not installed: %v", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skipf("git-http-backend: %v", err)
	}
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

	backendHandler := &cgi.Handler{Path: backend, Root: "/",
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	repo, mb, gotHead, err := MirrorFetcher{Mirrors: mirrors}.Fetch(context.Background(), ev, authClient{})
	if err != nil {
		t.Fatal(err)
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
