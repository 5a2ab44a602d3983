package server

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/gitrepo"
)

func TestMain(m *testing.M) {
	gin.SetMode(gin.TestMode)
	os.Exit(m.Run())
}

const (
	ghSecret    = "gh-secret"
	giteaSecret = "gitea-secret"
	shaBase     = "1111111111111111111111111111111111111111"
	shaA        = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	shaB        = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	shaC        = "cccccccccccccccccccccccccccccccccccccccc"
	demoFile    = "databases/web-data.yaml" // where the demo scenario's findings are
)

// call is one method call the fake forge saw.
type call struct {
	Method   string
	SHA      string              `json:",omitempty"`
	State    forge.State         `json:",omitempty"`
	Text     string              `json:",omitempty"` // status description, reply, reaction, user
	Comments []forge.LineComment `json:",omitempty"`
	// Summary and Annotations are a check run's (State is its conclusion, Text its title).
	Summary     string             `json:",omitempty"`
	Annotations []forge.Annotation `json:",omitempty"`
}

// fakeClient is a forge.Client that records its calls.
type fakeClient struct {
	mu       sync.Mutex
	calls    []call
	canWrite bool
	prs      map[int]forge.PullRequest // each PR as the forge shows it now (setPR)
	pinned   bool                      // deliveries do not change prs
	changed  map[string]map[int]bool
	errs     map[string]error // by method
}

func newFakeClient() *fakeClient {
	return &fakeClient{changed: map[string]map[int]bool{demoFile: {2: true}}, errs: map[string]error{}, prs: map[int]forge.PullRequest{}}
}

func (f *fakeClient) record(c call) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, c)
	return f.errs[c.Method]
}

// fakeLogin is the bot's account as fakeClient tells it.
const fakeLogin = "tiergate-bot"

// Login implements forge.Identifier, unrecorded as the real clients' cached identity is
// left out of call sequences; errs["Login"] fails it.
func (f *fakeClient) Login(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.errs["Login"]; err != nil {
		return "", err
	}
	return fakeLogin, nil
}

func (f *fakeClient) snapshot() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

func (f *fakeClient) SetStatus(_ context.Context, _ forge.Repo, sha string, state forge.State, desc string) error {
	return f.record(call{Method: "SetStatus", SHA: sha, State: state, Text: desc})
}

func (f *fakeClient) UpsertSummary(_ context.Context, _ forge.Repo, _ int, body string) error {
	return f.record(call{Method: "UpsertSummary", Text: firstLine(body)})
}

func (f *fakeClient) ChangedLines(context.Context, forge.Repo, int) (map[string]map[int]bool, error) {
	return f.changed, f.record(call{Method: "ChangedLines"})
}

func (f *fakeClient) PostReview(_ context.Context, _ forge.Repo, _ int, sha string, comments []forge.LineComment) error {
	return f.record(call{Method: "PostReview", SHA: sha, Comments: comments})
}

func (f *fakeClient) CanWrite(_ context.Context, _ forge.Repo, user string) (bool, error) {
	return f.canWrite, f.record(call{Method: "CanWrite", Text: user})
}

func (f *fakeClient) React(_ context.Context, _ forge.Repo, id int64, reaction string) error {
	return f.record(call{Method: "React", Text: fmt.Sprintf("%d %s", id, reaction)})
}

func (f *fakeClient) Reply(_ context.Context, _ forge.Repo, _ int, body string) error {
	return f.record(call{Method: "Reply", Text: body})
}

func (f *fakeClient) PullRequest(_ context.Context, _ forge.Repo, n int) (*forge.PullRequest, error) {
	f.mu.Lock()
	pr := f.prs[n]
	f.mu.Unlock()
	return &pr, f.record(call{Method: "PullRequest"})
}

// setPR makes pr what the forge shows as PR n.
func (f *fakeClient) setPR(n int, pr forge.PullRequest) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prs[n] = pr
}

// pushed makes the head of a pull_request delivery the PR's, as the push it tells of did
// (unless pinned), before the delivery is sent.
func (f *fakeClient) pushed(payload []byte) {
	var ev struct {
		Number int `json:"number"`
		PR     struct {
			Head struct {
				SHA  string `json:"sha"`
				Repo struct {
					FullName string `json:"full_name"`
				} `json:"repo"`
			} `json:"head"`
			Base struct {
				SHA string `json:"sha"`
			} `json:"base"`
		} `json:"pull_request"`
		Repo struct {
			FullName string `json:"full_name"`
		} `json:"repository"`
	}
	if json.Unmarshal(payload, &ev) != nil || ev.PR.Head.SHA == "" {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.pinned {
		f.prs[ev.Number] = forge.PullRequest{HeadSHA: ev.PR.Head.SHA, BaseSHA: ev.PR.Base.SHA, Fork: ev.PR.Head.Repo.FullName != "" && ev.PR.Head.Repo.FullName != ev.Repo.FullName}
	}
}

func (f *fakeClient) CloneAuth(context.Context, forge.Repo) (string, string, error) {
	return "", "", f.record(call{Method: "CloneAuth"})
}

// checkClient is a fakeClient that publishes check runs too, as a GitHub App's does.
type checkClient struct{ *fakeClient }

func (c checkClient) CheckRun(_ context.Context, _ forge.Repo, sha, conclusion, title, summary string, anns []forge.Annotation) error {
	return c.record(call{Method: "CheckRun", SHA: sha, State: forge.State(conclusion), Text: title, Summary: summary, Annotations: anns})
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// stubForges hands out one client for every event.
type stubForges struct{ client forge.Client }

func (s stubForges) Client(forge.Event) (forge.Client, error) { return s.client, nil }

func (s stubForges) Secret(kind forge.Kind) []byte {
	switch kind {
	case forge.GitHub:
		return []byte(ghSecret)
	case forge.Gitea:
		return []byte(giteaSecret)
	}
	return nil
}

// stubFetcher returns the demo fixture for every PR; a held head blocks until the run's
// context ends or release is closed.
type stubFetcher struct {
	dir        string // opened for each fetch, as the mirror's snapshot is
	dataDir    string // the server's
	base, head plumbing.Hash
	err        func(dataDir string) error // when set, every fetch fails with it

	mu      sync.Mutex
	events  []forge.Event
	hold    map[string]bool
	started chan string // heads whose held fetch has started
	release chan struct{}
}

func (s *stubFetcher) Fetch(ctx context.Context, ev forge.Event, _ forge.Client) (*gitrepo.Repo, plumbing.Hash, plumbing.Hash, error) {
	s.mu.Lock()
	s.events = append(s.events, ev)
	held := s.hold[ev.HeadSHA]
	s.mu.Unlock()
	if held {
		s.started <- ev.HeadSHA
		select {
		case <-ctx.Done():
			return nil, plumbing.ZeroHash, plumbing.ZeroHash, fmt.Errorf("fetch %s: %w", ev.Repo.CloneURL, ctx.Err())
		case <-s.release:
		}
	}
	if s.err != nil {
		return nil, plumbing.ZeroHash, plumbing.ZeroHash, s.err(s.dataDir)
	}
	repo, err := gitrepo.Open(s.dir)
	if err != nil {
		return nil, plumbing.ZeroHash, plumbing.ZeroHash, err
	}
	head := s.head
	if h, err := repo.Resolve(ev.HeadSHA); err == nil {
		head = h // a commit of the repository: that one (the others stand for the demo head)
	}
	return repo, s.base, head, nil
}

func (s *stubFetcher) fetched() []forge.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]forge.Event(nil), s.events...)
}

// commitOn commits the tree of parent again, as a push that changes nothing the review
// reads, and returns the new commit.
func commitOn(t *testing.T, dir string, parent plumbing.Hash) plumbing.Hash {
	t.Helper()
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.invalid", When: time.Unix(1700000100, 0)}
	h, err := wt.Commit("push", &git.CommitOptions{Author: sig, Parents: []plumbing.Hash{parent}, AllowEmptyCommits: true})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// demoRepoDir commits testdata/scenarios/demo/{base,head} into a temporary repository.
func demoRepoDir(t *testing.T) (dir string, base, head plumbing.Hash) {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", "scenarios", "demo")
	dir = t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	var commits []plumbing.Hash
	for i, side := range []string{"base", "head"} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.Name() != ".git" {
				os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
		if err := os.CopyFS(dir, os.DirFS(filepath.Join(src, side))); err != nil {
			t.Fatal(err)
		}
		if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
			t.Fatal(err)
		}
		sig := &object.Signature{Name: "t", Email: "t@example.invalid", When: time.Unix(int64(1700000000+i), 0)}
		h, err := wt.Commit(side, &git.CommitOptions{Author: sig})
		if err != nil {
			t.Fatal(err)
		}
		commits = append(commits, h)
	}
	return dir, commits[0], commits[1]
}

// harness is a server with a fake forge and the demo fixture, over one data directory.
type harness struct {
	t     *testing.T
	dir   string
	opts  Options
	fc    *fakeClient
	fetch *stubFetcher
	srv   *Server
	stop  func() // ends Run and waits for it
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	dir, base, head := demoRepoDir(t)
	h := &harness{
		t:   t,
		dir: t.TempDir(),
		fc:  newFakeClient(),
	}
	h.fetch = &stubFetcher{dir: dir, dataDir: h.dir, base: base, head: head, hold: map[string]bool{}, started: make(chan string, 4),
		release: make(chan struct{})}
	h.opts = Options{Forges: stubForges{h.fc}, Fetcher: h.fetch, Workers: 2,
		GitHost: map[forge.Kind]string{forge.GitHub: "github.example", forge.Gitea: "gitea.example"}}
	return h
}

// open makes a server over the harness's data directory, without workers.
func (h *harness) open() {
	h.t.Helper()
	opts := h.opts
	opts.DataDir = h.dir
	srv, err := New(opts)
	if err != nil {
		h.t.Fatal(err)
	}
	h.srv = srv
	h.t.Cleanup(func() { h.close() })
}

// start opens a server (unless open) and runs its workers.
func (h *harness) start() {
	h.t.Helper()
	if h.srv == nil {
		h.open()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	srv := h.srv
	go func() { done <- srv.Run(ctx) }()
	select { // Run has read the stored queue, or ended
	case <-srv.resumed:
	case err := <-done:
		done <- err
	}
	h.stop = func() {
		cancel()
		if err := <-done; err != nil {
			h.t.Errorf("Run: %v", err)
		}
	}
}

// close stops the workers and closes the server.
func (h *harness) close() {
	if h.stop != nil {
		h.stop()
		h.stop = nil
	}
	if h.srv != nil {
		h.srv.Close()
		h.srv = nil
	}
}

func (h *harness) do(method, path string, header http.Header, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.srv.Handler().ServeHTTP(rec, req)
	return rec
}

// github posts a GitHub delivery signed with secret.
func (h *harness) github(event, delivery string, payload []byte, secret string) *httptest.ResponseRecorder {
	hd := http.Header{}
	hd.Set("Content-Type", "application/json")
	if event == "pull_request" {
		h.fc.pushed(payload)
	}
	hd.Set("X-GitHub-Event", event)
	hd.Set("X-GitHub-Delivery", delivery)
	if secret != "" {
		hd.Set("X-Hub-Signature-256", "sha256="+mac(payload, secret))
	}
	return h.do(http.MethodPost, "/webhooks/github", hd, payload)
}

// gitea posts a Gitea delivery signed with secret.
func (h *harness) gitea(event, delivery string, payload []byte, secret string) *httptest.ResponseRecorder {
	hd := http.Header{}
	hd.Set("Content-Type", "application/json")
	if event == "pull_request" {
		h.fc.pushed(payload)
	}
	hd.Set("X-Gitea-Event", event)
	hd.Set("X-Gitea-Delivery", delivery)
	hd.Set("X-Gitea-Signature", mac(payload, secret))
	return h.do(http.MethodPost, "/webhooks/gitea", hd, payload)
}

func mac(body []byte, secret string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// storedJobs reads the queue file of a closed or open server.
func (h *harness) storedJobs() []job {
	h.t.Helper()
	_, jobs, err := h.srv.store.jobs()
	if err != nil {
		h.t.Fatal(err)
	}
	return jobs
}

// waitFor polls the fake forge's calls until cond holds, failing after a deadline.
func (h *harness) waitFor(what string, cond func([]call) bool) []call {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		calls := h.fc.snapshot()
		if cond(calls) {
			return calls
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s; calls:\n%s", what, dump(calls))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitStore polls until the store holds no job.
func (h *harness) waitStoreEmpty() {
	h.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for len(h.storedJobs()) > 0 {
		if time.Now().After(deadline) {
			h.t.Fatalf("jobs still stored: %+v", h.storedJobs())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// finalStatus reports whether sha got a status other than pending.
func finalStatus(sha string) func([]call) bool {
	return func(calls []call) bool {
		for _, c := range calls {
			if c.Method == "SetStatus" && c.SHA == sha && c.State != forge.StatePending {
				return true
			}
		}
		return false
	}
}

func dump(calls []call) string {
	var b strings.Builder
	for _, c := range calls {
		j, _ := json.Marshal(c)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

func (h *harness) metrics() string {
	rec := h.do(http.MethodGet, "/metrics", nil, nil)
	body, _ := io.ReadAll(rec.Body)
	return string(body)
}

var ghRepo = map[string]any{
	"id": 1, "name": "fleet", "full_name": "acme/fleet", "owner": map[string]any{"login": "acme"},
	"clone_url": "https://github.example/acme/fleet.git",
}

// ghPR is a GitHub pull_request payload; fork makes the head come from another repository.
func ghPR(action string, pr int, head string, fork bool) []byte {
	headRepo := ghRepo
	if fork {
		headRepo = map[string]any{"id": 2, "name": "fleet", "full_name": "mallory/fleet", "owner": map[string]any{"login": "mallory"}}
	}
	return mustJSON(map[string]any{
		"action": action, "number": pr,
		"pull_request": map[string]any{
			"number": pr,
			"head":   map[string]any{"sha": head, "ref": "feature", "repo": headRepo},
			"base":   map[string]any{"sha": shaBase, "ref": "main", "repo": ghRepo},
		},
		"repository":   ghRepo,
		"installation": map[string]any{"id": 42},
		"sender":       map[string]any{"login": "alice", "type": "User"},
	})
}

// ghComment is a GitHub issue_comment payload on PR pr.
func ghComment(pr int, id int64, login, userType, body string) []byte {
	user := map[string]any{"login": login, "type": userType}
	return mustJSON(map[string]any{
		"action":       "created",
		"issue":        map[string]any{"number": pr, "pull_request": map[string]any{"url": "https://github.example/api/pulls/7"}},
		"comment":      map[string]any{"id": id, "body": body, "user": user},
		"repository":   ghRepo,
		"installation": map[string]any{"id": 42},
		"sender":       user,
	})
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
