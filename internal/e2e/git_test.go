package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tiergate/tiergate/internal/forge/forgetest"
	"github.com/tiergate/tiergate/internal/gittest"
)

func runGit(t testing.TB, dir string, args ...string) string { return gittest.Run(t, dir, args...) }

// gitServer serves the bare repositories under root over smart HTTP through
// git-http-backend, behind basic auth with one user and password.
type gitServer struct {
	url  string
	root string

	mu       sync.Mutex
	user     string
	password string
	refused  int           // requests answered 401
	hold     *gittest.Hold // stops the next request until released
	cuts     int           // upload-pack answers still to cut short
	cut      int           // upload-pack answers cut short
	closing  chan struct{}
}

func newGitServer(t *testing.T, user, password string) *gitServer {
	t.Helper()
	s := &gitServer{root: t.TempDir(), user: user, password: password, closing: make(chan struct{})}
	h := gittest.Handler(t, s.root)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		user, pass, hd := s.user, s.password, s.hold
		u, p, ok := r.BasicAuth()
		if !ok || u == "" || user != "" && u != user || p != pass {
			s.refused++
			s.mu.Unlock()
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "bad credentials", http.StatusUnauthorized)
			return
		}
		cut := s.cuts > 0 && strings.HasSuffix(r.URL.Path, "/git-upload-pack")
		if cut {
			s.cuts--
			s.cut++
		}
		s.mu.Unlock()
		if hd != nil && !hd.Wait(r, s.closing) {
			return
		}
		if cut {
			w = &cutWriter{ResponseWriter: w, left: cutAfter}
		}
		h.ServeHTTP(w, r)
	}))
	s.url = srv.URL
	t.Cleanup(func() {
		close(s.closing)
		srv.Close()
	})
	return s
}

// cutAfter is how many bytes a cut answer sends (the negotiation and the start of the
// pack) before the connection drops.
const cutAfter = 40

// cutWriter aborts the response, and so drops the connection, once left bytes are written:
// a clone that fails mid-way.
type cutWriter struct {
	http.ResponseWriter
	left int
}

func (w *cutWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		_, _ = w.ResponseWriter.Write(p[:w.left])
		w.left = 0
		if f, ok := w.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler)
	}
	w.left -= len(p)
	return w.ResponseWriter.Write(p)
}

// cutFetches makes the next n fetches' pack answers stop half-way, the connection dropped.
func (s *gitServer) cutFetches(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cuts = n
}

func (s *gitServer) cutCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cut
}

// holdFetch makes the next fetch wait until release is closed.
func (s *gitServer) holdFetch() *gittest.Hold {
	h := gittest.NewHold()
	s.mu.Lock()
	s.hold = h
	s.mu.Unlock()
	return h
}

func (s *gitServer) refusedRequests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// prRepo is the repository of PR #1 as the forge holds it: main at base, refs/pull/1/head
// at head (later head2, a third commit on top of head).
type prRepo struct {
	work, bare            string
	cloneURL              string
	base, head, head2     string
	headFiles, head2Files []forgetest.File // the PR's changed files, as the forge's API lists them
}

// newPRRepo commits the scenario's base/ and head/ folders and a third commit (a README
// that no Kustomization reads) and publishes base and head as owner/name.git on s.
func newPRRepo(t *testing.T, s *gitServer, scenario, owner, name string) *prRepo {
	t.Helper()
	r := &prRepo{work: t.TempDir(), bare: filepath.Join(s.root, owner, name+".git")}
	r.cloneURL = s.url + "/" + owner + "/" + name + ".git"
	runGit(t, r.work, "init", "--quiet", "--initial-branch=main")
	commit := func(msg string) string {
		runGit(t, r.work, "add", "--all")
		runGit(t, r.work, "commit", "--quiet", "--no-gpg-sign", "-m", msg)
		return strings.TrimSpace(runGit(t, r.work, "rev-parse", "HEAD"))
	}
	replaceTree(t, r.work, filepath.Join(scenario, "base"))
	r.base = commit("base")
	replaceTree(t, r.work, filepath.Join(scenario, "head"))
	r.head = commit("head")
	if err := os.WriteFile(filepath.Join(r.work, "README.md"), []byte("# fleet\n\nReviewed by tiergate.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.head2 = commit("readme")
	r.headFiles = changedFiles(t, r.work, r.base, r.head)
	r.head2Files = changedFiles(t, r.work, r.base, r.head2)

	runGit(t, "", "init", "--quiet", "--bare", "--initial-branch=main", r.bare)
	runGit(t, r.work, "push", "--quiet", r.bare, r.base+":refs/heads/main", r.head+":refs/pull/1/head")
	return r
}

// pushHead2 pushes head2 to PR #1: the git server's ref moves and the fake forge names
// head2 as the PR's head, with head2's changed files.
func (e *env) pushHead2() {
	e.t.Helper()
	e.repo.pushHead2(e.t)
	e.fake.SetPR(1, e.repo.head2, e.repo.base, false)
	e.fake.SetFiles(1, e.repo.head2Files...)
}

// pushHead2 moves refs/pull/1/head to head2, as a push to the PR branch does.
func (r *prRepo) pushHead2(t *testing.T) {
	t.Helper()
	runGit(t, r.work, "push", "--quiet", "--force", r.bare, r.head2+":refs/pull/1/head")
}

// replaceTree makes dir's work tree a copy of src.
func replaceTree(t *testing.T, dir, src string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != ".git" {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// changedFiles lists the files from base to head with their hunks, as GitHub's files API
// does. Renames are not detected: a moved file is a deletion and an addition, so its
// lines can carry review comments.
func changedFiles(t *testing.T, dir, base, head string) []forgetest.File {
	t.Helper()
	var files []forgetest.File
	for _, name := range strings.Fields(runGit(t, dir, "diff", "--no-renames", "--name-only", base, head)) {
		patch := runGit(t, dir, "diff", "--no-renames", "--no-color", base, head, "--", name)
		if i := strings.Index(patch, "\n@@ "); i >= 0 {
			patch = patch[i+1:]
		}
		files = append(files, forgetest.File{Name: name, Patch: patch})
	}
	return files
}
