// Package gittest serves git repositories over smart HTTP for tests: the git CLI's own
// git-http-backend behind net/http/cgi, isolated from the user's and system's git config.
// Tests that need git are skipped where git or git-http-backend is not installed.
package gittest

import (
	"bytes"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Env isolates the git CLI and git-http-backend from the user's and system's config, with a
// fixed author and committer.
func Env(home string) []string {
	return []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.invalid",
		"GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.invalid"}
}

// Run runs the git CLI in dir and returns its standard output; a failure fails the test.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), Env(t.TempDir())...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

// Backend returns git-http-backend's path; the test is skipped without git or it.
func Backend(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	backend := filepath.Join(strings.TrimSpace(Run(t, "", "--exec-path")), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Skipf("git-http-backend: %v", err)
	}
	return backend
}

// Handler serves every bare repository under root (GIT_PROJECT_ROOT) over smart HTTP.
func Handler(t testing.TB, root string) http.Handler {
	return &cgi.Handler{
		Path:       Backend(t),
		Root:       "/",
		Env:        append(Env(t.TempDir()), "GIT_PROJECT_ROOT="+root, "GIT_HTTP_EXPORT_ALL=1"),
		InheritEnv: []string{"PATH"},
	}
}

// Hold stops the first request it is asked about until Release is closed: a fetch caught
// half-way.
type Hold struct {
	Arrived chan struct{} // closed when the request arrives
	Release chan struct{} // close to let it through
	once    sync.Once
}

// NewHold returns a Hold that has caught nothing yet.
func NewHold() *Hold { return &Hold{Arrived: make(chan struct{}), Release: make(chan struct{})} }

// Wait holds r if it is the first request asked about, until Release, r's client going away
// or closing; it reports whether the request may go on.
func (h *Hold) Wait(r *http.Request, closing <-chan struct{}) bool {
	first := false
	h.once.Do(func() { first = true; close(h.Arrived) })
	if !first {
		return true
	}
	select {
	case <-h.Release:
		return true
	case <-r.Context().Done():
	case <-closing:
	}
	return false
}
