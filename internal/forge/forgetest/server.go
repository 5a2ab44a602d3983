// Package forgetest runs fake GitHub, Gitea and Forgejo API servers for tests. A fake
// accepts only requests that its forge's API description (shared/forge-fixtures/api-specs)
// defines: method and path template, integer path parameters, and the JSON body schema
// (required fields, types, enums, sizes). Anything else is answered 400 and fails the
// test. Its state is one repository's PRs, keyed by number; owner and repo are not checked.
package forgetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const (
	// Token is the API token the fakes accept ("Bearer" on GitHub, "token" on Gitea).
	Token = "test-token"
	// BotLogin is the user that Token authenticates.
	BotLogin = "tiergate-bot"
)

// Call is one request a fake received.
type Call struct {
	Method string
	Path   string // as sent, without the query
	Query  string
	Body   any // the decoded JSON body; nil without one
}

// Comment is a PR conversation comment held by a fake.
type Comment struct {
	ID     int64
	Author string
	Body   string
}

// File is one changed file of a PR: its head path and unified patch (hunks only, as
// GitHub's files API returns it).
type File struct {
	Name  string
	Patch string
}

// Server is a fake forge on httptest.
type Server struct {
	URL string

	t      testing.TB
	spec   *spec
	routes map[string]handler // "METHOD template"
	auth   func(r *http.Request, rt *route) (login string, ok bool)

	mu        sync.Mutex
	calls     []Call
	observe   func(Call)
	before    func(Call)
	holds     []*Hold
	faults    map[string][]fault
	perms     map[string]string
	prs       map[int]pullRequest
	comments  []prComment
	files     map[int][]File
	nextID    int64
	recordID  int64                       // ids of statuses and reviews (comment ids stay as they were)
	statuses  map[string][]map[string]any // by sha, oldest first
	reviews   map[int][]map[string]any    // by PR, oldest first
	checkRuns []map[string]any            // oldest first
}

type handler func(s *Server, r *request) (status int, reply any)

type request struct {
	*http.Request
	w      http.ResponseWriter // for reply headers
	params map[string]string
	body   any
	login  string
}

type fault struct {
	status  int // 0: stall, answer nothing until the client goes away; passStatus: none
	headers map[string]string
	message string
}

type pullRequest struct {
	head, base string
	fork       bool
}

type prComment struct {
	Comment
	pr int
}

func newServer(t testing.TB, specFile string, routes map[string]handler) *Server {
	t.Helper()
	sp, err := loadSpec(filepath.Join(FixturesDir(t), "api-specs", specFile))
	if err != nil {
		t.Fatalf("load API description: %v", err)
	}
	s := &Server{t: t, spec: sp, routes: routes, faults: map[string][]fault{},
		perms: map[string]string{}, prs: map[int]pullRequest{}, files: map[int][]File{}, nextID: 100,
		statuses: map[string][]map[string]any{}, reviews: map[int][]map[string]any{}}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	s.URL = ts.URL
	return s
}

// Calls returns the requests received so far, rejected and faulted ones included.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// ResetCalls forgets the requests received so far.
func (s *Server) ResetCalls() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = nil
}

// FailNext makes the next request to path (as sent, or without the API base path)
// fail with status and headers. Faults queue up per path.
func (s *Server) FailNext(path string, status int, headers map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := strings.TrimPrefix(path, s.spec.basePath)
	s.faults[p] = append(s.faults[p], fault{status: status, headers: headers, message: "injected fault"})
}

// FailNextMessage is FailNext with the error message the reply's JSON body carries (GitHub
// tells a secondary rate limit by its message).
func (s *Server) FailNextMessage(path string, status int, headers map[string]string, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := strings.TrimPrefix(path, s.spec.basePath)
	s.faults[p] = append(s.faults[p], fault{status: status, headers: headers, message: message})
}

// passStatus marks a queued fault that lets its request through (PassNext); hangStatus one
// that applies its request and never answers (HangAfterNext).
const (
	passStatus  = -1
	hangStatus  = -2
	resetStatus = -3
)

// ResetAfterNext makes the next request to path take effect and then have its connection
// reset (TCP RST) before any answer: a forge that did the work while the answer was lost.
func (s *Server) ResetAfterNext(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := strings.TrimPrefix(path, s.spec.basePath)
	s.faults[p] = append(s.faults[p], fault{status: resetStatus})
}

// HangAfterNext makes the next request to path take effect and then get no answer until
// its client gives up: a forge that did the work but whose answer never came back.
func (s *Server) HangAfterNext(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := strings.TrimPrefix(path, s.spec.basePath)
	s.faults[p] = append(s.faults[p], fault{status: hangStatus})
}

// PassNext lets the next request to path through untouched: with StallNext after it, the
// second request stalls. Faults queue up per path.
func (s *Server) PassNext(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := strings.TrimPrefix(path, s.spec.basePath)
	s.faults[p] = append(s.faults[p], fault{status: passStatus})
}

// StallNext makes the next request to path get no answer until its client gives up (a
// forge that hangs); the request is recorded and has no effect. Faults queue up per path.
func (s *Server) StallNext(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := strings.TrimPrefix(path, s.spec.basePath)
	s.faults[p] = append(s.faults[p], fault{})
}

// Observe calls fn with every request as it is received (under the fake's lock: fn must
// not call the fake).
func (s *Server) Observe(fn func(Call)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.observe = fn
}

// BeforeServe calls fn with every request before the fake handles it, outside the fake's
// lock: fn may block (holding that request back) while the test calls the fake.
func (s *Server) BeforeServe(fn func(Call)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.before = fn
}

// Hold is a request the fake holds back before serving it (Server.Hold).
type Hold struct {
	match func(Call) bool
	// Arrived is closed when the request arrives; Gone when its client gave up on it (the
	// request's context ended) while it was held: it is then not served.
	Arrived, Gone chan struct{}
	release       chan struct{}
	once          sync.Once
}

// Release lets the held request be served (once it arrives); it may be called more than once.
func (h *Hold) Release() { h.once.Do(func() { close(h.release) }) }

// Hold holds back the first request that match accepts, until the test calls Release or
// the client goes away; the test's cleanup releases it.
func (s *Server) Hold(match func(Call) bool) *Hold {
	h := &Hold{match: match, Arrived: make(chan struct{}), Gone: make(chan struct{}), release: make(chan struct{})}
	s.mu.Lock()
	s.holds = append(s.holds, h)
	s.mu.Unlock()
	s.t.Cleanup(h.Release)
	return h
}

// hold waits while c is held: false when the client went away meanwhile.
func (s *Server) hold(r *http.Request, c Call) bool {
	s.mu.Lock()
	var h *Hold
	for i, cand := range s.holds {
		if cand.match(c) {
			h = cand
			s.holds = append(s.holds[:i:i], s.holds[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	if h == nil {
		return true
	}
	close(h.Arrived)
	select {
	case <-h.release:
		return true
	case <-r.Context().Done():
		close(h.Gone)
		return false
	}
}

// SetPermission gives user a repository permission ("admin", "write", "read", …).
func (s *Server) SetPermission(user, permission string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.perms[user] = permission
}

// SetPR creates or changes PR number.
func (s *Server) SetPR(number int, head, base string, fork bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prs[number] = pullRequest{head, base, fork}
}

// SetFiles sets the changed files of PR number.
func (s *Server) SetFiles(pr int, files ...File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[pr] = files
}

// AddComment adds a conversation comment to PR number and returns its id.
func (s *Server) AddComment(pr int, author, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addComment(pr, author, body)
}

func (s *Server) addComment(pr int, author, body string) int64 {
	s.nextID++
	s.comments = append(s.comments, prComment{Comment{s.nextID, author, body}, pr})
	return s.nextID
}

// Comments returns the conversation comments of PR number, oldest first.
func (s *Server) Comments(pr int) []Comment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Comment
	for _, c := range s.comments {
		if c.pr == pr {
			out = append(out, c.Comment)
		}
	}
	return out
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	before, holding := s.before, len(s.holds) > 0
	s.mu.Unlock()
	if before != nil || holding {
		c := Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
		if len(raw) > 0 {
			_ = json.Unmarshal(raw, &c.Body) // a body that is not JSON is rejected by serve
		}
		if before != nil {
			before(c)
		}
		if holding && !s.hold(r, c) {
			return
		}
	}
	s.mu.Lock()
	then := s.serve(w, r, raw)
	s.mu.Unlock()
	switch then {
	case stallAfter:
		<-r.Context().Done()
	case resetAfter:
		resetConn(s.t, w)
	}
}

// afterServe is what a request gets once served: its answer, none until its client goes
// away, or its connection reset.
type afterServe int

const (
	answered afterServe = iota
	stallAfter
	resetAfter
)

// resetConn closes the request's connection with a TCP RST, nothing written.
func resetConn(t testing.TB, w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("fake forge: reset the connection: %v", err)
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	conn.Close()
}

// serve handles a request under the lock and says what the request gets then.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, raw []byte) afterServe {
	call := Call{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
	var body any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &body); err != nil {
			s.record(call)
			s.reject(w, http.StatusBadRequest, "%s %s: body is not JSON: %v", r.Method, r.URL.Path, err)
			return answered
		}
		call.Body = body
	}
	s.record(call)
	rt, params, err := s.spec.match(r.Method, r.URL.Path)
	if err == nil {
		err = s.checkBody(rt, body)
	}
	if err != nil {
		s.reject(w, http.StatusBadRequest, "%s %s: %v", r.Method, r.URL.Path, err)
		return answered
	}
	f, ok := s.popFault(r.URL.Path)
	hang := ok && (f.status == hangStatus || f.status == resetStatus)
	if ok && f.status != passStatus && !hang {
		if f.status == 0 {
			return stallAfter
		}
		for k, v := range f.headers {
			w.Header().Set(k, v)
		}
		writeJSON(w, f.status, map[string]any{"message": f.message})
		return answered
	}
	login, ok := s.auth(r, rt)
	if !ok {
		s.reject(w, http.StatusUnauthorized, "%s %s: bad Authorization header", r.Method, r.URL.Path)
		return answered
	}
	h := s.routes[rt.method+" "+rt.template]
	if h == nil {
		s.reject(w, http.StatusNotImplemented, "%s %s: the fake does not implement %s", r.Method, r.URL.Path, rt.template)
		return answered
	}
	if hang {
		h(s, &request{Request: r, w: httptest.NewRecorder(), params: params, body: body, login: login})
		if f.status == resetStatus {
			return resetAfter
		}
		return stallAfter
	}
	status, reply := h(s, &request{Request: r, w: w, params: params, body: body, login: login})
	if text, isText := reply.(string); isText {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		io.WriteString(w, text)
		return answered
	}
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return answered
	}
	writeJSON(w, status, reply)
	return answered
}

func (s *Server) record(c Call) {
	s.calls = append(s.calls, c)
	if s.observe != nil {
		s.observe(c)
	}
}

func (s *Server) checkBody(rt *route, body any) error {
	schema, required, takes := s.spec.bodySchema(rt)
	empty := body == nil // no body, or JSON null (ghinstallation sends it): servers read both as nothing
	switch {
	case empty && required:
		return fmt.Errorf("the request body is required")
	case empty:
		return nil
	case !takes:
		return fmt.Errorf("the operation takes no body")
	}
	return s.spec.validate(schema, body, "body")
}

func (s *Server) popFault(path string) (fault, bool) {
	p := strings.TrimPrefix(path, s.spec.basePath)
	q := s.faults[p]
	if len(q) == 0 {
		return fault{}, false
	}
	s.faults[p] = q[1:]
	return q[0], true
}

func (s *Server) reject(w http.ResponseWriter, status int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.t.Errorf("fake forge: %s", msg)
	writeJSON(w, status, map[string]any{"message": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func notFound() (int, any) {
	return http.StatusNotFound, map[string]any{"message": "Not Found"}
}

// commentJSON is a comment as both forges return it (the fields the clients read).
func commentJSON(c Comment) map[string]any {
	typ := "User"
	if strings.HasSuffix(c.Author, "[bot]") {
		typ = "Bot"
	}
	return map[string]any{"id": c.ID, "body": c.Body, "user": map[string]any{"login": c.Author, "type": typ}}
}

// prComments lists the comments of a PR as JSON values.
func (s *Server) prComments(pr int) []any {
	out := []any{}
	for _, c := range s.comments {
		if c.pr == pr {
			out = append(out, commentJSON(c.Comment))
		}
	}
	return out
}

// editComment changes a comment's body; only its author may.
func (s *Server) editComment(r *request, id string) (int, any) {
	for i := range s.comments {
		c := &s.comments[i]
		if fmt.Sprint(c.ID) != id {
			continue
		}
		if c.Author != r.login {
			return http.StatusForbidden, map[string]any{"message": "not the author"}
		}
		c.Body, _ = field(r.body, "body").(string)
		return http.StatusOK, commentJSON(c.Comment)
	}
	return notFound()
}

// deleteComment removes a comment; only its author may (both forges answer 204).
func (s *Server) deleteComment(r *request, id string) (int, any) {
	for i, c := range s.comments {
		if fmt.Sprint(c.ID) != id {
			continue
		}
		if c.Author != r.login {
			return http.StatusForbidden, map[string]any{"message": "not the author"}
		}
		s.comments = append(s.comments[:i:i], s.comments[i+1:]...)
		return http.StatusNoContent, nil
	}
	return notFound()
}

func (s *Server) hasComment(id string) bool {
	for _, c := range s.comments {
		if fmt.Sprint(c.ID) == id {
			return true
		}
	}
	return false
}

func field(body any, name string) any {
	m, _ := body.(map[string]any)
	return m[name]
}

// addStatus records a commit status on sha as the forge returns it.
func (s *Server) addStatus(r *request, sha string, stateField string) map[string]any {
	s.recordID++
	st := map[string]any{"id": s.recordID, stateField: field(r.body, "state"), "context": field(r.body, "context"),
		"description": field(r.body, "description"), "creator": map[string]any{"login": r.login}}
	s.statuses[sha] = append(s.statuses[sha], st)
	return st
}

// newestFirst lists statuses newest first, as both forges list a commit's statuses.
func newestFirst(statuses []map[string]any) []any {
	out := []any{}
	for i := len(statuses) - 1; i >= 0; i-- {
		out = append(out, statuses[i])
	}
	return out
}

// addReview records a review of PR n as the forge returns it.
func (s *Server) addReview(r *request, n int, state any) map[string]any {
	s.recordID++
	return s.recordReview(n, r.login, state, field(r.body, "commit_id"), field(r.body, "body"))
}

// recordReview appends a review of PR n by author; an author whose login ends in "[bot]"
// is typed Bot, as GitHub types an App's account.
func (s *Server) recordReview(n int, author string, state, commit, body any) map[string]any {
	typ := "User"
	if strings.HasSuffix(author, "[bot]") {
		typ = "Bot"
	}
	rv := map[string]any{"id": s.recordID, "state": state, "commit_id": commit,
		"body": body, "user": map[string]any{"login": author, "username": author, "type": typ}}
	s.reviews[n] = append(s.reviews[n], rv)
	return rv
}

// AddReview records a comment review of PR n on commit by author, as if posted through
// the forge's own interface (a person's review, or one an earlier run posted).
func (s *Server) AddReview(n int, author, commit, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordID++
	s.recordReview(n, author, "COMMENTED", commit, body)
}

// ReviewCommits returns the commit of each review posted on PR n, oldest first.
func (s *Server) ReviewCommits(n int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, rv := range s.reviews[n] {
		c, _ := rv["commit_id"].(string)
		out = append(out, c)
	}
	return out
}

// CheckRuns returns the number of check runs created on sha.
func (s *Server) CheckRuns(sha string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, run := range s.checkRuns {
		if run["head_sha"] == sha {
			n++
		}
	}
	return n
}

// Reviews returns the number of reviews posted on PR n.
func (s *Server) Reviews(n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reviews[n])
}
