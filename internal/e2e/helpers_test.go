package e2e

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/forge/forgetest"
	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/server"
)

func TestMain(m *testing.M) {
	gin.SetMode(gin.ReleaseMode) // as bot serve does
	os.Exit(m.Run())
}

const (
	owner    = "acme"
	repoName = "fleet"
	secret   = "webhook-secret"
	// installationID is the GitHub App installation named by the deliveries.
	installationID = 77
	writer         = "wendy" // write access: her /recheck runs a review
	reader         = "rita"  // read access: her /recheck is refused
	// waitLimit bounds every wait for the server; a review of the scenario takes seconds.
	waitLimit = 90 * time.Second
)

// flavour is one forge as the server meets it: its fake API, its webhook payloads and
// headers, and how the server authenticates to it and to its git server.
type flavour struct {
	name     string
	kind     forge.Kind
	newFake  func(testing.TB) *forgetest.Server
	apiBase  string // path prefix of the API on the fake ("/api/v1" on Gitea and Forgejo)
	endpoint string // the server's webhook path
	app      bool   // GitHub App auth (else a token)
	forgejo  bool   // deliveries carry X-Forgejo-* headers too
	// fixture files under shared/forge-fixtures
	opened, synchronize, comment string
	// files is the path of the PR's changed-files request
	files string
	// cloneUser and clonePassword are the basic-auth credentials that the git server accepts;
	// an empty cloneUser accepts any non-empty user name with the password, as Gitea and
	// Forgejo do with a token.
	cloneUser, clonePassword string
	// botLogin writes the bot's comments on the fake.
	botLogin string
}

var (
	github = flavour{
		name: "github", kind: forge.GitHub, newFake: forgetest.NewGitHub, endpoint: "/webhooks/github",
		opened:      "github/webhooks/pull_request.opened.json",
		synchronize: "github/webhooks/pull_request.synchronize.json",
		comment:     "github/webhooks/issue_comment.created.pull_request.json",
		files:       "/pulls/1/files",
		cloneUser:   "x-access-token", clonePassword: forgetest.Token, botLogin: forgetest.BotLogin,
	}
	githubApp = flavour{
		name: "github-app", kind: forge.GitHub, newFake: forgetest.NewGitHub, endpoint: "/webhooks/github", app: true,
		opened:      github.opened,
		synchronize: github.synchronize,
		comment:     github.comment,
		files:       github.files,
		// the fake issues "ghs_fake_installation_<id>" to an installation
		cloneUser: "x-access-token", clonePassword: fmt.Sprintf("ghs_fake_installation_%d", installationID),
		botLogin: forgetest.AppSlug + "[bot]",
	}
	gitea = flavour{
		name: "gitea", kind: forge.Gitea, newFake: forgetest.NewGitea, apiBase: "/api/v1", endpoint: "/webhooks/gitea",
		opened:        "gitea/webhooks/drone-go-scm.pull_request_opened.json",
		synchronize:   "gitea/webhooks/drone-go-scm.pull_request_synchronized.json",
		comment:       "gitea/webhooks/drone-go-scm.pull_request_comment_created.json",
		files:         "/pulls/1.diff",
		clonePassword: forgetest.Token, botLogin: forgetest.BotLogin,
	}
	forgejo = flavour{
		name: "forgejo", kind: forge.Gitea, newFake: forgetest.NewForgejo, apiBase: "/api/v1", endpoint: "/webhooks/gitea", forgejo: true,
		opened:        "forgejo/webhooks/woodpecker.HookPullRequest.json",
		synchronize:   "forgejo/webhooks/woodpecker.HookPullRequestUpdated.json",
		comment:       "forgejo/webhooks/constructed.issue_comment.created.pull_request.json",
		files:         gitea.files,
		clonePassword: forgetest.Token, botLogin: forgetest.BotLogin,
	}
	flavours = []flavour{github, githubApp, gitea, forgejo}
)

// env is one flavour's world: the fake forge with PR #1 of acme/fleet, the git server that
// holds the PR's commits and the data directory that server instances share.
type env struct {
	t        *testing.T
	fl       flavour
	fixtures string
	scenario string
	fake     *forgetest.Server
	git      *gitServer
	repo     *prRepo
	dataDir  string
	log      *syncBuffer
	// reviewTimeout is --review-timeout of the servers started (0: 2 minutes).
	reviewTimeout time.Duration
	// retry tunes the forge clients' retries (zero: the production defaults).
	retry forge.RetryOptions
	// loginRetry times the learning of the bot's login (zero: the server's defaults).
	loginRetry server.LoginRetry
	// workers is the number of reviews run at once (0: 2).
	workers int
}

// newEnv sets up fl's fake forge and git server for the scenario of testdata/scenarios;
// the test is skipped, saying why, when git-http-backend is missing.
func newEnv(t *testing.T, fl flavour, scenario string) *env {
	t.Helper()
	fixtures := forgetest.FixturesDir(t)
	dir := filepath.Join("..", "..", "testdata", "scenarios", scenario)
	if _, err := os.Stat(filepath.Join(dir, "expect.json")); err != nil {
		t.Fatalf("scenario %s: %v", scenario, err)
	}
	e := &env{t: t, fl: fl, fixtures: fixtures, scenario: dir, dataDir: t.TempDir(), log: &syncBuffer{}}
	e.git = newGitServer(t, fl.cloneUser, fl.clonePassword)
	e.repo = newPRRepo(t, e.git, dir, owner, repoName)
	e.fake = fl.newFake(t)
	e.fake.SetPR(1, e.repo.head, e.repo.base, false)
	e.fake.SetFiles(1, e.repo.headFiles...)
	e.fake.SetPermission(writer, "write")
	e.fake.SetPermission(reader, "read")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", e.log.String())
		}
	})
	return e
}

// eachForge runs test once per flavour in fls, in parallel subtests named after them, each
// with its own env of the e2e scenario and that scenario's expected review.
func eachForge(t *testing.T, fls []flavour, test func(t *testing.T, e *env, exp expectation)) {
	t.Helper()
	eachFlavour(t, fls, func(t *testing.T, fl flavour) {
		e := newEnv(t, fl, scenario)
		test(t, e, loadExpectation(t, e.scenario))
	})
}

// eachFlavour runs test once per flavour in fls, in parallel subtests named after them; the
// test makes its own env (another scenario, newManyPREnv).
func eachFlavour(t *testing.T, fls []flavour, test func(t *testing.T, fl flavour)) {
	t.Helper()
	t.Parallel()
	for _, fl := range fls {
		t.Run(fl.name, func(t *testing.T) {
			t.Parallel()
			test(t, fl)
		})
	}
}

// eachInterruption runs test for every flavour, way of stopping the server (kill: SIGKILL of
// a child process, else SIGTERM of one in this process) and step, in parallel subtests named
// "flavour/kill|sigterm/step". The child process authenticates with a token, so the GitHub
// App is only stopped by SIGTERM; the step "check run" exists for the App only.
func eachInterruption(t *testing.T, steps []string, test func(t *testing.T, fl flavour, kill bool, step string)) {
	t.Helper()
	t.Parallel()
	for _, fl := range flavours {
		for _, kill := range []bool{true, false} {
			if kill && fl.app {
				continue
			}
			how := "sigterm"
			if kill {
				how = "kill"
			}
			for _, step := range steps {
				if step == "check run" && !fl.app {
					continue
				}
				t.Run(fl.name+"/"+how+"/"+step, func(t *testing.T) {
					t.Parallel()
					test(t, fl, kill, step)
				})
			}
		}
	}
}

// instance is one server process: the server, its HTTP listener and its workers.
type instance struct {
	e      *env
	srv    *server.Server
	http   *httptest.Server
	cancel context.CancelFunc
	ran    chan error
	once   sync.Once
}

// start wires a server over the env's data directory the way `bot serve` does; run starts
// its workers (without them accepted jobs only wait in the queue).
func (e *env) start(run bool) *instance {
	e.t.Helper()
	reviewTimeout := e.reviewTimeout
	if reviewTimeout == 0 {
		reviewTimeout = 2 * time.Minute
	}
	workers := e.workers
	if workers == 0 {
		workers = 2
	}
	metrics := server.NewMetrics()
	cfg := forgeConfig(e.fl.kind, e.fl.app, e.fake.URL, secret)
	cfg.HTTPTimeout, cfg.Retry = reviewTimeout, e.retry
	// The same wiring as bot serve, clone-host check included.
	fs, err := server.NewForges(cfg, metrics)
	if err != nil {
		e.t.Fatal(err)
	}
	mirrors, err := gitrepo.NewMirrors(filepath.Join(e.dataDir, "mirrors"))
	if err != nil {
		e.t.Fatal(err)
	}
	srv, err := server.New(server.Options{
		DataDir:       e.dataDir,
		Forges:        fs,
		GitHost:       fs.GitHosts,
		Fetcher:       server.MirrorFetcher{Mirrors: mirrors},
		Workers:       workers,
		ReviewTimeout: reviewTimeout,
		LoginRetry:    e.loginRetry,
		Metrics:       metrics,
		Logger:        slog.New(slog.NewJSONHandler(e.log, nil)),
	})
	if err != nil {
		e.t.Fatal(err)
	}
	in := &instance{e: e, srv: srv, http: httptest.NewServer(srv.Handler()), cancel: func() {}}
	if run {
		ctx, cancel := context.WithCancel(context.Background())
		in.cancel, in.ran = cancel, make(chan error, 1)
		go func() { in.ran <- srv.Run(ctx) }()
	}
	e.t.Cleanup(in.stop)
	return in
}

// forgeConfig configures the one forge of kind at the fake's apiURL, as bot serve's flags
// would: a GitHub App (app) or token, or a Gitea/Forgejo token, with the webhook secret.
func forgeConfig(kind forge.Kind, app bool, apiURL, secret string) server.ForgeConfig {
	var cfg server.ForgeConfig
	switch {
	case kind == forge.GitHub && app:
		cfg.GitHubAPIURL, cfg.GitHubAppID, cfg.GitHubAppKeyPEM, cfg.GitHubWebhookSecret = apiURL+"/", forgetest.AppID, forgetest.AppKeyPEM(), secret
	case kind == forge.GitHub:
		cfg.GitHubAPIURL, cfg.GitHubToken, cfg.GitHubWebhookSecret = apiURL+"/", forgetest.Token, secret
	default:
		cfg.GiteaURL, cfg.GiteaToken, cfg.GiteaWebhookSecret = apiURL, forgetest.Token, secret
	}
	return cfg
}

// stop shuts the instance down as bot serve does on SIGTERM: the workers stop (running
// reviews are cancelled, their jobs stay queued), the listener closes, then the queue.
func (in *instance) stop() {
	in.once.Do(func() {
		in.cancel()
		if in.ran != nil {
			if err := <-in.ran; err != nil {
				in.e.t.Errorf("Run: %v", err)
			}
		}
		in.http.Close()
		if err := in.srv.Close(); err != nil {
			in.e.t.Errorf("Close: %v", err)
		}
	})
}

// get fetches path from the instance and returns the status and body.
func (in *instance) get(path string) (int, string) {
	in.e.t.Helper()
	resp, err := http.Get(in.http.URL + path)
	if err != nil {
		in.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// delivery is one webhook request.
type delivery struct {
	event     string // pull_request, issue_comment
	eventType string // Gitea's fine-grained type: pull_request, pull_request_sync, pull_request_comment
	id        string
	body      []byte
	secret    string // "": no signature headers
}

// send posts d to the instance and returns the status and body of the answer.
func (in *instance) send(d delivery) (int, string) {
	in.e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, in.http.URL+in.e.fl.endpoint, bytes.NewReader(d.body))
	if err != nil {
		in.e.t.Fatal(err)
	}
	req.Header = in.e.headers(d)
	return in.do(req)
}

func (in *instance) do(req *http.Request) (int, string) {
	in.e.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		in.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// headers are the headers the forge sends with d (shared/forge-fixtures/*/webhooks/README.md).
func (e *env) headers(d delivery) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	sig := ""
	if d.secret != "" {
		m := hmac.New(sha256.New, []byte(d.secret))
		m.Write(d.body)
		sig = hex.EncodeToString(m.Sum(nil))
	}
	if e.fl.kind == forge.GitHub {
		h.Set("User-Agent", "GitHub-Hookshot/e2e")
		h.Set("X-GitHub-Event", d.event)
		h.Set("X-GitHub-Delivery", d.id)
		if sig != "" {
			h.Set("X-Hub-Signature-256", "sha256="+sig)
		}
		return h
	}
	prefixes := []string{"X-Gitea-", "X-Gogs-", "X-GitHub-"}
	if e.fl.forgejo {
		prefixes = append(prefixes, "X-Forgejo-")
	}
	for _, p := range prefixes {
		h.Set(p+"Delivery", d.id)
		h.Set(p+"Event", d.event)
		h.Set(p+"Event-Type", d.eventType)
		if sig != "" && p != "X-GitHub-" {
			h.Set(p+"Signature", sig)
		}
	}
	if sig != "" {
		h.Set("X-Hub-Signature-256", "sha256="+sig)
	}
	return h
}

// newID is a fresh delivery id.
func newID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// prDelivery is the flavour's opened payload (before == "") or synchronize payload (a push
// from before to head) for PR #1 of acme/fleet at head, signed with the configured secret.
func (e *env) prDelivery(head, before string) delivery {
	e.t.Helper()
	return e.prDeliveryFor(1, head, before)
}

// prDeliveryFor is prDelivery for PR number pr.
func (e *env) prDeliveryFor(pr int, head, before string) delivery {
	e.t.Helper()
	file, action, eventType := e.fl.opened, "opened", "pull_request"
	if before != "" {
		file, action, eventType = e.fl.synchronize, "synchronized", "pull_request_sync"
		if e.fl.kind == forge.GitHub {
			action = "synchronize"
		}
	}
	p := e.payload(file)
	if got := p["action"]; got != action {
		e.t.Fatalf("%s: action %v, want %s", file, got, action)
	}
	p["number"] = pr
	pull := obj(p, "pull_request")
	if _, ok := pull["number"]; ok {
		pull["number"] = pr
	}
	if _, ok := pull["index"]; ok {
		pull["index"] = pr
	}
	obj(pull, "head")["sha"] = head
	obj(pull, "base")["sha"] = e.repo.base
	obj(pull, "base")["ref"] = "main"
	for _, side := range []string{"head", "base"} {
		if r, ok := obj(pull, side)["repo"].(map[string]any); ok {
			e.rewriteRepo(r)
		}
	}
	if before != "" && e.fl.kind == forge.GitHub {
		p["before"], p["after"] = before, head
	}
	return e.sign(delivery{event: "pull_request", eventType: eventType}, p)
}

// commentDelivery is the flavour's issue_comment payload: user wrote body on PR #1 as
// comment id.
func (e *env) commentDelivery(id int64, user, body string) delivery {
	e.t.Helper()
	p := e.payload(e.fl.comment)
	issue := obj(p, "issue")
	issue["number"] = 1
	c := obj(p, "comment")
	c["id"] = id
	c["body"] = body
	setUser(obj(c, "user"), user)
	setUser(obj(p, "sender"), user)
	return e.sign(delivery{event: "issue_comment", eventType: "pull_request_comment"}, p)
}

// payload reads a fixture and points its repository at acme/fleet on the git server.
func (e *env) payload(file string) map[string]any {
	e.t.Helper()
	raw, err := os.ReadFile(filepath.Join(e.fixtures, file))
	if err != nil {
		e.t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(raw, &p); err != nil {
		e.t.Fatalf("%s: %v", file, err)
	}
	e.rewriteRepo(obj(p, "repository"))
	if e.fl.kind == forge.GitHub {
		obj(p, "installation")["id"] = installationID
	}
	return p
}

func (e *env) rewriteRepo(r map[string]any) {
	r["name"] = repoName
	r["full_name"] = owner + "/" + repoName
	r["clone_url"] = e.repo.cloneURL
	r["html_url"] = strings.TrimSuffix(e.repo.cloneURL, ".git")
	setUser(obj(r, "owner"), owner)
}

// setUser renames a user object (GitHub: login; Gitea and Forgejo: login and username).
func setUser(u map[string]any, login string) {
	u["login"] = login
	if _, ok := u["username"]; ok {
		u["username"] = login
	}
}

func (e *env) sign(d delivery, p map[string]any) delivery {
	e.t.Helper()
	body, err := json.Marshal(p)
	if err != nil {
		e.t.Fatal(err)
	}
	d.id, d.body, d.secret = newID(), body, secret
	return d
}

// obj returns m[key] as an object, creating it when absent.
func obj(m map[string]any, key string) map[string]any {
	v, ok := m[key].(map[string]any)
	if !ok {
		v = map[string]any{}
		m[key] = v
	}
	return v
}

// syncBuffer is the server's log, kept for a failing test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// assertCalls compares the publishing calls with want.
func (e *env) assertCalls(what string, calls []forgetest.Call, want []call) {
	e.t.Helper()
	if d := cmp.Diff(want, e.publishing(calls)); d != "" {
		e.t.Errorf("%s: forge calls (-want +got):\n%s", what, d)
	}
}

// summary returns the PR's only comment that starts with the marker, and checks that the
// bot wrote it.
func (e *env) summary() forgetest.Comment {
	e.t.Helper()
	var found []forgetest.Comment
	for _, c := range e.fake.Comments(1) {
		if strings.HasPrefix(c.Body, summaryMarker) {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		e.t.Fatalf("PR has %d summary comments, want 1: %+v", len(found), found)
	}
	if found[0].Author != e.fl.botLogin {
		e.t.Errorf("summary written by %q, want %q", found[0].Author, e.fl.botLogin)
	}
	return found[0]
}

func expectStatus(t *testing.T, what string, code int, body string, wantCode int, wantBody string) {
	t.Helper()
	if code != wantCode || !strings.Contains(body, wantBody) {
		t.Fatalf("%s: answered %d %s, want %d with %q", what, code, body, wantCode, wantBody)
	}
}

// assertAppAuth checks that the App's installation from the delivery got a token.
func (e *env) assertAppAuth(calls []forgetest.Call) {
	e.t.Helper()
	want := fmt.Sprintf("POST /app/installations/%d/access_tokens", installationID)
	for _, c := range calls {
		if c.Method+" "+c.Path == want {
			return
		}
	}
	e.t.Errorf("no %s among the forge calls", want)
}

// sendSignedAs posts d's body with the signature of signed's body.
func (in *instance) sendSignedAs(d, signed delivery) (int, string) {
	in.e.t.Helper()
	h := in.e.headers(signed)
	req, err := http.NewRequest(http.MethodPost, in.http.URL+in.e.fl.endpoint, strings.NewReader(string(d.body)))
	if err != nil {
		in.e.t.Fatal(err)
	}
	req.Header = h
	return in.do(req)
}

// waitRuns waits until n reviews have ended with result: the run that published a final
// status has returned. (Its job may still be stored for a moment.)
func (e *env) waitRuns(in *instance, result string, n int) {
	e.t.Helper()
	e.waitMetric(in, `tiergate_reviews_total{result="`+result+`"}`, float64(n))
}

// waitMetric polls /metrics until the sample name has value v.
func (e *env) waitMetric(in *instance, name string, v float64) {
	e.t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`)
	deadline := time.Now().Add(waitLimit)
	for {
		_, body := in.get("/metrics")
		m := re.FindStringSubmatch(body)
		if m != nil {
			if got, err := strconv.ParseFloat(m[1], 64); err == nil && got == v {
				return
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("metric %s: want %v, got %v", name, v, m)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
