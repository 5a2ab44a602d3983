package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/gittest"
)

const (
	testUser  = "x-access-token"
	testToken = "secret-token"
)

var (
	goodAuth = Auth{User: testUser, Password: testToken}
	prSpecs  = []string{"+refs/pull/7/head:refs/tiergate/pull/7/head", "+refs/heads/main:refs/tiergate/heads/main"}
)

// runGit runs the git CLI in dir and returns its trimmed standard output.
func runGit(t *testing.T, dir string, args ...string) string {
	return strings.TrimSpace(gittest.Run(t, dir, args...))
}

// gitServer serves the bare repositories under root over smart HTTP through
// git-http-backend, behind basic auth (testUser, testToken).
type gitServer struct {
	url     string
	root    string
	closing chan struct{}

	mu          sync.Mutex
	requests    []string       // "METHOD /path" of each request since the last take, refused ones too
	inFlight    map[string]int // repository path element -> requests being served
	maxInFlight map[string]int
	hold        *hold
}

// hold stops the first request whose "METHOD /path" starts with match.
type hold struct {
	match string
	*gittest.Hold
}

func newHold(match string) *hold { return &hold{match: match, Hold: gittest.NewHold()} }

func newGitServer(t *testing.T) *gitServer {
	t.Helper()
	s := &gitServer{
		root:        t.TempDir(),
		closing:     make(chan struct{}),
		inFlight:    map[string]int{},
		maxInFlight: map[string]int{},
	}
	cgiHandler := gittest.Handler(t, s.root)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		repo, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
		line := r.Method + " " + r.URL.Path
		s.mu.Lock()
		s.requests = append(s.requests, line)
		s.inFlight[repo]++
		s.maxInFlight[repo] = max(s.maxInFlight[repo], s.inFlight[repo])
		h := s.hold
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.inFlight[repo]--
			s.mu.Unlock()
		}()

		if user, pass, ok := r.BasicAuth(); !ok || user != testUser || pass != testToken {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			http.Error(w, "bad credentials", http.StatusUnauthorized)
			return
		}
		if h != nil && strings.HasPrefix(line, h.match) && !h.Wait(r, s.closing) {
			return
		}
		cgiHandler.ServeHTTP(w, r)
	}))
	s.url = srv.URL
	t.Cleanup(func() {
		close(s.closing)
		srv.Close()
	})
	return s
}

// take returns the requests since the last take.
func (s *gitServer) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.requests
	s.requests = nil
	return r
}

func (s *gitServer) setHold(h *hold) {
	s.mu.Lock()
	s.hold = h
	s.mu.Unlock()
}

// sourceRepo is a bare repository served by a gitServer.
type sourceRepo struct {
	url  string
	dir  string
	repo *git.Repository
}

func (s *gitServer) newRepo(t *testing.T, name string) *sourceRepo {
	t.Helper()
	dir := filepath.Join(s.root, name)
	runGit(t, "", "init", "--bare", "--quiet", "--initial-branch=main", dir)
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &sourceRepo{url: s.url + "/" + name, dir: dir, repo: r}
}

func (r *sourceRepo) updateRef(t *testing.T, ref string, h plumbing.Hash) {
	t.Helper()
	runGit(t, r.dir, "update-ref", ref, h.String())
}

// prRepo is a source repository with a pull request:
//
//	c1 - c2 - c3       (main)
//	       \
//	        p1 - p2    (refs/pull/7/head)
type prRepo struct {
	*sourceRepo
	c1, c2, c3, p1, p2 plumbing.Hash
}

func newPRRepo(t *testing.T, s *gitServer, name string) prRepo {
	t.Helper()
	src := s.newRepo(t, name)
	r := src.repo
	tree := func(files map[string]file) plumbing.Hash { return buildTree(t, r, files) }
	p := prRepo{sourceRepo: src}
	p.c1 = commit(t, r, tree(map[string]file{"README.md": regular("fleet\n")}), 1)
	p.c2 = commit(t, r, tree(map[string]file{"README.md": regular("fleet\n"), "apps/app.yaml": regular("kind: A\n")}), 2, p.c1)
	p.c3 = commit(t, r, tree(map[string]file{"README.md": regular("fleet v2\n"), "apps/app.yaml": regular("kind: A\n")}), 3, p.c2)
	p.p1 = commit(t, r, tree(map[string]file{"README.md": regular("fleet\n"), "apps/app.yaml": regular("kind: B\n")}), 4, p.c2)
	p.p2 = commit(t, r, tree(map[string]file{"README.md": regular("fleet\n"), "apps/app.yaml": regular("kind: B\n"), "apps/new.yaml": regular("kind: C\n")}), 5, p.p1)
	src.updateRef(t, "refs/heads/main", p.c3)
	src.updateRef(t, "refs/pull/7/head", p.p2)
	return p
}

func newMirrors(t *testing.T) *Mirrors {
	t.Helper()
	m, err := NewMirrors(filepath.Join(t.TempDir(), "mirrors"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// resolve returns rev in r, failing the test if it does not resolve.
func resolve(t *testing.T, r *Repo, rev string) plumbing.Hash {
	t.Helper()
	h, err := r.Resolve(rev)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

func mirrorDirName(t *testing.T, cloneURL string) string {
	t.Helper()
	name, _, err := mirrorName(cloneURL)
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// assertNoSecret fails if any name or file content under dir holds one of secrets.
func assertNoSecret(t *testing.T, dir string, secrets ...string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		for _, s := range secrets {
			if strings.Contains(p, s) {
				t.Errorf("path %s holds %q", p, s)
			}
		}
		if !d.Type().IsRegular() {
			return nil
		}
		files++
		b, err := os.ReadFile(p)
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("file %s holds %q", p, s)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no file under %s: nothing was checked", dir)
	}
}

func TestMirrorsFetch(t *testing.T) {
	s := newGitServer(t)
	src := newPRRepo(t, s, "src.git")
	m := newMirrors(t)
	ctx := context.Background()
	wantDirs := []string{mirrorDirName(t, src.url)}

	// First fetch: the mirror is created and both refs arrive.
	r1, err := m.Fetch(ctx, src.url, goodAuth, prSpecs, src.p2.String(), src.c3.String())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"GET /src.git/info/refs", "POST /src.git/git-upload-pack"}, s.take()); diff != "" {
		t.Errorf("requests of the first fetch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(src.p2, resolve(t, r1, "refs/tiergate/pull/7/head")); diff != "" {
		t.Errorf("pull head (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(src.c3, resolve(t, r1, "refs/tiergate/heads/main")); diff != "" {
		t.Errorf("main (-want +got):\n%s", diff)
	}
	base, err := r1.MergeBase(src.c3, src.p2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(src.c2, base); diff != "" {
		t.Errorf("merge base (-want +got):\n%s", diff)
	}
	tree, err := r1.Checkout(src.p2, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := map[string]string{
		"README.md":     "-rw-r--r-- fleet\n",
		"apps/app.yaml": "-rw-r--r-- kind: B\n",
		"apps/new.yaml": "-rw-r--r-- kind: C\n",
	}
	if diff := cmp.Diff(wantFiles, listDir(t, tree.Dir)); diff != "" {
		t.Errorf("checkout of the pull head (-want +got):\n%s", diff)
	}
	if err := tree.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantDirs, entries(t, m.dir)); diff != "" {
		t.Errorf("mirror directories (-want +got):\n%s", diff)
	}

	// Nothing new: one ref advertisement, no pack, no error.
	if _, err := m.Fetch(ctx, src.url, goodAuth, prSpecs, src.p2.String()); err != nil {
		t.Fatalf("up-to-date fetch: %v", err)
	}
	if diff := cmp.Diff([]string{"GET /src.git/info/refs"}, s.take()); diff != "" {
		t.Errorf("requests of the up-to-date fetch (-want +got):\n%s", diff)
	}

	// A new commit on the pull request.
	p3 := commit(t, src.repo, buildTree(t, src.repo, map[string]file{"README.md": regular("fleet\n"), "apps/app.yaml": regular("kind: D\n")}), 6, src.p2)
	src.updateRef(t, "refs/pull/7/head", p3)
	r2, err := m.Fetch(ctx, src.url, goodAuth, prSpecs, p3.String())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p3, resolve(t, r2, "refs/tiergate/pull/7/head")); diff != "" {
		t.Errorf("pull head after a push (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(src.p2, resolve(t, r1, "refs/tiergate/pull/7/head")); diff != "" {
		t.Errorf("pull head seen by the first Repo (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantDirs, entries(t, m.dir)); diff != "" {
		t.Errorf("mirror directories after a second fetch (-want +got):\n%s", diff)
	}

	// A force-push rebases the pull request onto c3.
	q1 := commit(t, src.repo, buildTree(t, src.repo, map[string]file{"README.md": regular("fleet v2\n"), "apps/app.yaml": regular("kind: E\n")}), 7, src.c3)
	src.updateRef(t, "refs/pull/7/head", q1)
	r3, err := m.Fetch(ctx, src.url, goodAuth, prSpecs, q1.String(), src.c3.String())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(q1, resolve(t, r3, "refs/tiergate/pull/7/head")); diff != "" {
		t.Errorf("pull head after a force-push (-want +got):\n%s", diff)
	}
	base, err = r3.MergeBase(src.c3, q1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(src.c3, base); diff != "" {
		t.Errorf("merge base after a force-push (-want +got):\n%s", diff)
	}

	// Open reads the bare mirror too.
	opened, err := Open(filepath.Join(m.dir, wantDirs[0]))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(q1, resolve(t, opened, "refs/tiergate/pull/7/head")); diff != "" {
		t.Errorf("pull head through Open (-want +got):\n%s", diff)
	}

	assertNoSecret(t, m.dir, testToken)
}

func TestMirrorsFetchAuth(t *testing.T) {
	s := newGitServer(t)
	src := newPRRepo(t, s, "src.git")
	m := newMirrors(t)
	ctx := context.Background()

	tests := []struct {
		name string
		auth Auth
	}{
		{name: "wrong password", auth: Auth{User: testUser, Password: "wrong-token"}},
		{name: "anonymous"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := m.Fetch(ctx, src.url, tc.auth, prSpecs, src.p2.String())
			want := "fetch " + src.url + ": authentication required: bad credentials\n"
			if diff := cmp.Diff(want, errString(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if !errors.Is(err, transport.ErrAuthenticationRequired) {
				t.Errorf("error %v does not wrap transport.ErrAuthenticationRequired", err)
			}
			if r != nil {
				t.Errorf("Repo = %v; want nil", r)
			}
			if diff := cmp.Diff([]string{"GET /src.git/info/refs"}, s.take()); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}

	r, err := m.Fetch(ctx, src.url, goodAuth, prSpecs, src.p2.String())
	if err != nil {
		t.Fatalf("fetch after refused ones: %v", err)
	}
	if diff := cmp.Diff(src.p2, resolve(t, r, "refs/tiergate/pull/7/head")); diff != "" {
		t.Errorf("pull head (-want +got):\n%s", diff)
	}
	assertNoSecret(t, m.dir, testToken, "wrong-token")
}

func TestMirrorsFetchErrors(t *testing.T) {
	s := newGitServer(t)
	src := newPRRepo(t, s, "src.git")
	absent := "0123456789abcdef0123456789abcdef01234567"

	tests := []struct {
		name     string
		refspecs []string
		want     []string
		wantErr  string
	}{
		{name: "missing commit", refspecs: prSpecs, want: []string{src.p2.String(), absent},
			wantErr: "commit " + absent + " not found after fetching " + strings.Join(prSpecs, " ")},
		{name: "two missing commits", refspecs: prSpecs[1:], want: []string{src.p2.String(), absent},
			wantErr: "commit " + src.p2.String() + ", " + absent + " not found after fetching " + prSpecs[1]},
		{name: "short sha", refspecs: prSpecs, want: []string{"0123456"},
			wantErr: `wanted commit "0123456" is not a 40-digit sha`},
		{name: "missing remote ref", refspecs: []string{"+refs/pull/8/head:refs/tiergate/pull/8/head"},
			wantErr: `couldn't find remote ref "refs/pull/8/head"`},
		{name: "no refspec", wantErr: "no refspec to fetch"},
		{name: "refspec without destination", refspecs: []string{"refs/pull/7/head"},
			wantErr: `refspec "refs/pull/7/head": malformed refspec, separators are wrong`},
		{name: "refspec without source", refspecs: []string{":refs/x"},
			wantErr: `refspec ":refs/x": no source`},
		{name: "destination outside refs", refspecs: []string{"+refs/pull/7/head:HEAD"},
			wantErr: `refspec "+refs/pull/7/head:HEAD": destination must be under refs/`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newMirrors(t)
			r, err := m.Fetch(context.Background(), src.url, goodAuth, tc.refspecs, tc.want...)
			if diff := cmp.Diff("fetch "+src.url+": "+tc.wantErr, errString(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if r != nil {
				t.Errorf("Repo = %v; want nil", r)
			}
		})
	}
}

func TestMirrorsRefusedURLs(t *testing.T) {
	m := newMirrors(t)
	tests := []struct {
		url     string
		wantErr string
	}{
		{url: "file:///srv/git/fleet.git", wantErr: `mirror URL file:///srv/git/fleet.git: scheme "file" is not supported, only http and https`},
		{url: "ssh://git@github.com/o/fleet.git", wantErr: `mirror URL ssh://github.com/o/fleet.git: scheme "ssh" is not supported, only http and https`},
		{url: "git://github.com/o/fleet.git", wantErr: `mirror URL git://github.com/o/fleet.git: scheme "git" is not supported, only http and https`},
		{url: "git@github.com:o/fleet.git", wantErr: `mirror URL: first path segment in URL cannot contain colon`},
		{url: "/srv/git/fleet.git", wantErr: `mirror URL /srv/git/fleet.git: scheme "" is not supported, only http and https`},
		{url: "https:///o/fleet.git", wantErr: `mirror URL https:///o/fleet.git: no host`},
		{url: "https://x-access-token:" + testToken + "@github.com/o/fleet.git",
			wantErr: `mirror URL https://github.com/o/fleet.git: credentials in the URL are refused, pass them as Auth`},
		{url: "https://" + testToken + "@github.com/o/fleet.git",
			wantErr: `mirror URL https://github.com/o/fleet.git: credentials in the URL are refused, pass them as Auth`},
		{url: "https://github.com/o/fleet.git?x=1", wantErr: `mirror URL https://github.com/o/fleet.git?x=1: query and fragment are not supported`},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			_, err := m.Fetch(context.Background(), tc.url, goodAuth, prSpecs)
			if diff := cmp.Diff(tc.wantErr, errString(err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
	if got := entries(t, m.dir); len(got) != 0 {
		t.Errorf("mirror directory holds %v after refused URLs; want nothing", got)
	}
}

func TestMirrorName(t *testing.T) {
	same := []string{
		"https://github.com/o/fleet.git",
		"https://github.com/o/fleet",
		"https://GitHub.com/o/fleet.git/",
		"HTTPS://github.com:443/o/fleet",
	}
	name0, key0, err := mirrorName(same[0])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("https://github.com/o/fleet", key0); diff != "" {
		t.Errorf("key (-want +got):\n%s", diff)
	}
	// sha256("https://github.com/o/fleet") starts 4c40d95e12d18742.
	if diff := cmp.Diff("github.com_o_fleet-4c40d95e12d18742", name0); diff != "" {
		t.Errorf("name (-want +got):\n%s", diff)
	}
	for _, u := range same[1:] {
		if name, _, err := mirrorName(u); err != nil || name != name0 {
			t.Errorf("mirrorName(%q) = %q, %v; want %q", u, name, err, name0)
		}
	}
	different := []string{
		"http://github.com/o/fleet",
		"https://github.com:8443/o/fleet",
		"https://github.com/o/Fleet",
		"https://github.com/o_fleet",
		"https://gitea.example.com/o/fleet",
	}
	seen := map[string]string{name0: same[0]}
	for _, u := range different {
		name, _, err := mirrorName(u)
		if err != nil {
			t.Fatal(err)
		}
		if prev, ok := seen[name]; ok {
			t.Errorf("mirrorName(%q) = mirrorName(%q) = %q; want distinct", u, prev, name)
		}
		seen[name] = u
	}
}

func TestMirrorsConcurrent(t *testing.T) {
	s := newGitServer(t)
	one := newPRRepo(t, s, "one.git")
	two := newPRRepo(t, s, "two.git")
	m := newMirrors(t)
	ctx := context.Background()

	t.Run("same URL waits", func(t *testing.T) {
		h := newHold("GET /one.git/")
		s.setHold(h)
		defer s.setHold(nil)
		first := make(chan error, 1)
		go func() {
			_, err := m.Fetch(ctx, one.url, goodAuth, prSpecs, one.p2.String())
			first <- err
		}()
		<-h.Arrived
		s.take()

		// The mirror is busy: the second fetch waits for it until its deadline, without a request.
		short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		_, err := m.Fetch(short, one.url, goodAuth, prSpecs, one.p2.String())
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error while the mirror is busy = %v; want context.DeadlineExceeded", err)
		}
		if got := s.take(); len(got) != 0 {
			t.Errorf("requests while the mirror is busy = %v; want none", got)
		}
		close(h.Release)
		if err := <-first; err != nil {
			t.Errorf("held fetch: %v", err)
		}
	})

	t.Run("other URL runs", func(t *testing.T) {
		h := newHold("GET /one.git/")
		s.setHold(h)
		defer s.setHold(nil)
		first := make(chan error, 1)
		go func() {
			_, err := m.Fetch(ctx, one.url, goodAuth, prSpecs, one.p2.String())
			first <- err
		}()
		<-h.Arrived
		// one.git is held mid-fetch: two.git completes meanwhile.
		r, err := m.Fetch(ctx, two.url, goodAuth, prSpecs, two.p2.String())
		if err != nil {
			t.Fatalf("fetch of another URL: %v", err)
		}
		if diff := cmp.Diff(two.p2, resolve(t, r, "refs/tiergate/pull/7/head")); diff != "" {
			t.Errorf("pull head of two.git (-want +got):\n%s", diff)
		}
		close(h.Release)
		if err := <-first; err != nil {
			t.Errorf("held fetch: %v", err)
		}
	})

	t.Run("many at once", func(t *testing.T) {
		s.mu.Lock()
		clear(s.maxInFlight)
		s.mu.Unlock()
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := range 8 {
			src := []prRepo{one, two}[i%2]
			wg.Go(func() {
				r, err := m.Fetch(ctx, src.url, goodAuth, prSpecs, src.p2.String())
				if err == nil {
					var h plumbing.Hash
					if h, err = r.Resolve("refs/tiergate/pull/7/head"); err == nil && h != src.p2 {
						err = fmt.Errorf("%s: pull head %s; want %s", src.url, h, src.p2)
					}
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Error(err)
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if diff := cmp.Diff(map[string]int{"one.git": 1, "two.git": 1}, s.maxInFlight); diff != "" {
			t.Errorf("most concurrent requests per repository (-want +got):\n%s", diff)
		}
	})
	wantDirs := []string{mirrorDirName(t, one.url), mirrorDirName(t, two.url)}
	slices.Sort(wantDirs)
	if diff := cmp.Diff(wantDirs, entries(t, m.dir)); diff != "" {
		t.Errorf("mirror directories (-want +got):\n%s", diff)
	}
}

func TestMirrorsCancel(t *testing.T) {
	s := newGitServer(t)
	src := newPRRepo(t, s, "src.git")
	m := newMirrors(t)

	t.Run("before the fetch", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := m.Fetch(ctx, src.url, goodAuth, prSpecs)
		if diff := cmp.Diff("fetch "+src.url+": context canceled", errString(err)); diff != "" {
			t.Errorf("error (-want +got):\n%s", diff)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v does not wrap context.Canceled", err)
		}
		if got := s.take(); len(got) != 0 {
			t.Errorf("requests = %v; want none", got)
		}
	})

	t.Run("during the pack transfer", func(t *testing.T) {
		h := newHold("POST /src.git/git-upload-pack")
		s.setHold(h)
		defer s.setHold(nil)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := m.Fetch(ctx, src.url, goodAuth, prSpecs, src.p2.String())
			done <- err
		}()
		<-h.Arrived
		cancel()
		err := <-done
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v; want one wrapping context.Canceled", err)
		}
	})

	// The interrupted fetch left the mirror usable; a temporary pack such an interruption
	// can leave behind is removed.
	packDir := filepath.Join(m.dir, mirrorDirName(t, src.url), "objects", "pack")
	if err := os.WriteFile(filepath.Join(packDir, "tmp_pack_interrupted"), []byte("PACK"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := m.Fetch(context.Background(), src.url, goodAuth, prSpecs, src.p2.String())
	if err != nil {
		t.Fatalf("fetch after cancelled ones: %v", err)
	}
	if diff := cmp.Diff(src.p2, resolve(t, r, "refs/tiergate/pull/7/head")); diff != "" {
		t.Errorf("pull head (-want +got):\n%s", diff)
	}
	tmps, err := filepath.Glob(filepath.Join(packDir, "tmp_*"))
	if err != nil || len(tmps) != 0 {
		t.Errorf("temporary packs left = %v, %v; want none", tmps, err)
	}
}

func TestMirrorsRecreatesUnusable(t *testing.T) {
	s := newGitServer(t)
	src := newPRRepo(t, s, "src.git")
	dir := filepath.Join(t.TempDir(), "mirrors")
	m, err := NewMirrors(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Fetch(context.Background(), src.url, goodAuth, prSpecs, src.p2.String()); err != nil {
		t.Fatal(err)
	}
	mirror := filepath.Join(m.dir, mirrorDirName(t, src.url))

	tests := []struct {
		name    string
		corrupt func(t *testing.T)
	}{
		{name: "config is not git config", corrupt: func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(mirror, "config"), []byte("[core\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "HEAD is missing", corrupt: func(t *testing.T) {
			if err := os.Remove(filepath.Join(mirror, "HEAD")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "mirror is a file", corrupt: func(t *testing.T) {
			if err := os.RemoveAll(mirror); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(mirror, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.corrupt(t)
			r, err := m.Fetch(context.Background(), src.url, goodAuth, prSpecs, src.p2.String())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(src.p2, resolve(t, r, "refs/tiergate/pull/7/head")); diff != "" {
				t.Errorf("pull head (-want +got):\n%s", diff)
			}
		})
	}

	// An interrupted creation is cleaned up by the next NewMirrors.
	if err := os.Mkdir(filepath.Join(dir, initPrefix+"x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := NewMirrors(dir); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{filepath.Base(mirror)}, entries(t, dir)); diff != "" {
		t.Errorf("mirror directories (-want +got):\n%s", diff)
	}
}

func TestAuthString(t *testing.T) {
	a := Auth{User: testUser, Password: testToken}
	for _, got := range []string{a.String(), a.LogValue().String()} {
		if diff := cmp.Diff(testUser+":***", got); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
	if diff := cmp.Diff("", Auth{}.String()); diff != "" {
		t.Errorf("anonymous (-want +got):\n%s", diff)
	}
}

// TestMirrorsFetchEmptyRef: a process killed while go-git rewrote a reference leaves its
// file empty; the next fetch drops it and fetches as usual.
func TestMirrorsFetchEmptyRef(t *testing.T) {
	s := newGitServer(t)
	src := newPRRepo(t, s, "src.git")
	m := newMirrors(t)
	ctx := context.Background()
	if _, err := m.Fetch(ctx, src.url, goodAuth, prSpecs, src.p2.String(), src.c3.String()); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(m.dir, mirrorDirName(t, src.url), "refs", "tiergate", "pull", "7", "head")
	if err := os.WriteFile(ref, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := m.Fetch(ctx, src.url, goodAuth, prSpecs, src.p2.String(), src.c3.String())
	if err != nil {
		t.Fatalf("fetch after the ref was emptied: %v", err)
	}
	if diff := cmp.Diff(src.p2, resolve(t, r, "refs/tiergate/pull/7/head")); diff != "" {
		t.Errorf("pull head (-want +got):\n%s", diff)
	}
}

// TestMirrorsFetchTruncatedIndex: a process killed while a fetch wrote a pack index leaves
// it cut short; the mirror cannot be read, so it is fetched again from nothing.
func TestMirrorsFetchTruncatedIndex(t *testing.T) {
	s := newGitServer(t)
	src := newPRRepo(t, s, "src.git")
	m := newMirrors(t)
	ctx := context.Background()
	if _, err := m.Fetch(ctx, src.url, goodAuth, prSpecs, src.p2.String(), src.c3.String()); err != nil {
		t.Fatal(err)
	}
	idx, err := filepath.Glob(filepath.Join(m.dir, mirrorDirName(t, src.url), "objects", "pack", "*.idx"))
	if err != nil || len(idx) == 0 {
		t.Fatalf("no pack index in the mirror: %v", err)
	}
	if err := os.Truncate(idx[0], 10); err != nil {
		t.Fatal(err)
	}
	s.take()
	r, err := m.Fetch(ctx, src.url, goodAuth, prSpecs, src.p2.String(), src.c3.String())
	if err != nil {
		t.Fatalf("fetch after the index was cut short: %v", err)
	}
	if diff := cmp.Diff(src.p2, resolve(t, r, "refs/tiergate/pull/7/head")); diff != "" {
		t.Errorf("pull head (-want +got):\n%s", diff)
	}
}
