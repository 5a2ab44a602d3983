package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// call is a forge API request reduced to what a test asserts: the operation (method and
// path, API prefix removed) and its key fields.
type call struct {
	Op string
	// Detail: a status's "state [context] description"; a comment's "summary: <verdict line>"
	// or "reply: <body>"; a reaction's content; a review's "<event> on <commit>"; a check
	// run's "[conclusion] [name] title; summary: <first line>".
	Detail string `json:",omitempty"`
	// Lines are a review's line comments, "path:line **rule** (severity): <object>", or a check
	// run's annotations, "path:start-end level **rule**: <object>".
	Lines []string `json:",omitempty"`
}

const summaryMarker = "<!-- tiergate -->"

// identityOps are the requests by which a client learns who it is or gets a token; they are
// cached per process, so the publishing sequences leave them out.
func identityOp(op string) bool {
	switch {
	case op == "GET /user", op == "GET /app", op == "GET /version",
		strings.HasPrefix(op, "POST /app/installations/"):
		return true
	}
	return false
}

// publishing reduces the fake's calls to the publishing ones.
func (e *env) publishing(calls []forgetest.Call) []call {
	var out []call
	for _, c := range calls {
		n := e.reduce(c)
		if !identityOp(n.Op) {
			out = append(out, n)
		}
	}
	return out
}

func (e *env) reduce(c forgetest.Call) call {
	path := strings.TrimPrefix(c.Path, e.fl.apiBase)
	out := call{Op: c.Method + " " + path}
	body, _ := c.Body.(map[string]any)
	str := func(k string) string { s, _ := body[k].(string); return s }
	switch {
	case strings.Contains(path, "/statuses/"):
		out.Detail = fmt.Sprintf("%s [%s] %s", str("state"), str("context"), str("description"))
	case body != nil && strings.Contains(path, "/check-runs"):
		// The run's id is the fake's; the forge package tests that the client patches the run it created.
		if i := strings.Index(path, "/check-runs/"); i >= 0 {
			out.Op = c.Method + " " + path[:i] + "/check-runs/{id}"
		}
		output, _ := body["output"].(map[string]any)
		title, _ := output["title"].(string)
		summary, _ := output["summary"].(string)
		verdict, _, _ := strings.Cut(summary, "\n")
		out.Detail = strings.TrimSpace(fmt.Sprintf("%s [%s] %s; summary: %s", str("conclusion"), str("name"), title, verdict))
		as, _ := output["annotations"].([]any)
		for _, v := range as {
			m, _ := v.(map[string]any)
			msg, _ := m["message"].(string)
			object, _, _ := strings.Cut(msg, " ")
			out.Lines = append(out.Lines, fmt.Sprintf("%v:%v-%v %v **%v**: %s", m["path"], m["start_line"], m["end_line"],
				m["annotation_level"], m["title"], object))
		}
	case strings.HasSuffix(path, "/reactions"):
		out.Detail = str("content")
	case c.Method == http.MethodPost && strings.HasSuffix(path, "/reviews"):
		out.Detail = str("event") + " on " + str("commit_id")
		cs, _ := body["comments"].([]any)
		for _, v := range cs {
			m, _ := v.(map[string]any)
			line := m["line"] // GitHub
			if line == nil {
				line = m["new_position"] // Gitea, Forgejo
			}
			b, _ := m["body"].(string)
			out.Lines = append(out.Lines, fmt.Sprintf("%v:%v %s", m["path"], line, lineHead(b)))
		}
	case body != nil && strings.Contains(path, "/comments"):
		if b := str("body"); strings.HasPrefix(b, summaryMarker) {
			verdict, _, _ := strings.Cut(strings.TrimPrefix(b, summaryMarker+"\n"), "\n")
			out.Detail = "summary: " + verdict
		} else {
			out.Detail = "reply: " + b
		}
	}
	return out
}

// lineHead is "**rule** (severity): <object>" of a line comment.
func lineHead(body string) string {
	head, rest, _ := strings.Cut(body, ": ")
	object, _, _ := strings.Cut(rest, " ")
	return head + ": " + object
}

// Expected calls, by operation.

func (e *env) repoPath() string { return "/repos/" + owner + "/" + repoName }

func (e *env) status(sha, state, desc string) call {
	return call{Op: "POST " + e.repoPath() + "/statuses/" + sha, Detail: fmt.Sprintf("%s [tiergate] %s", state, desc)}
}

func (e *env) listComments() call { return call{Op: "GET " + e.repoPath() + "/issues/1/comments"} }

func (e *env) createSummary(verdict string) call {
	return call{Op: "POST " + e.repoPath() + "/issues/1/comments", Detail: "summary: " + verdict}
}

func (e *env) editSummary(id int64, verdict string) call {
	return call{Op: fmt.Sprintf("PATCH %s/issues/comments/%d", e.repoPath(), id), Detail: "summary: " + verdict}
}

// reply is the bot's answer to comment id: body, then the hidden marker naming the comment.
func (e *env) reply(id int64, body string) call {
	return call{Op: "POST " + e.repoPath() + "/issues/1/comments",
		Detail: fmt.Sprintf("reply: %s\n\n<!-- tiergate reply to comment %d -->", body, id)}
}

func (e *env) changedFiles() call { return call{Op: "GET " + e.repoPath() + e.fl.files} }

func (e *env) review(sha string, lines []string) call {
	return call{Op: "POST " + e.repoPath() + "/pulls/1/reviews", Detail: "COMMENT on " + sha, Lines: lines}
}

// reviewLines are the line comments of the review posted on sha among calls.
func (e *env) reviewLines(calls []forgetest.Call, sha string) []string {
	op := e.review(sha, nil).Op
	for _, c := range e.publishing(calls) {
		if c.Op == op {
			return c.Lines
		}
	}
	return nil
}

func (e *env) permission(user string) call {
	return call{Op: "GET " + e.repoPath() + "/collaborators/" + user + "/permission"}
}

func (e *env) reaction(commentID int64, content string) call {
	return call{Op: fmt.Sprintf("POST %s/issues/comments/%d/reactions", e.repoPath(), commentID), Detail: content}
}

// checkRun is the check run of an App's review of sha: created completed, then annotated.
func (e *env) checkRun(sha string, exp expectation) []call {
	detail := fmt.Sprintf("[tiergate] %s; summary: %s", cdiDescription, cdiVerdict)
	return []call{
		{Op: "POST " + e.repoPath() + "/check-runs", Detail: exp.finalState() + " " + detail},
		{Op: "PATCH " + e.repoPath() + "/check-runs/{id}", Detail: detail, Lines: cdiAnnotations},
	}
}

func (e *env) getPR() call { return call{Op: "GET " + e.repoPath() + "/pulls/1"} }

// waitCalls polls the fake forge until cond holds for its calls, failing after waitLimit.
func (e *env) waitCalls(what string, cond func([]call) bool) []forgetest.Call {
	e.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		calls := e.fake.Calls()
		if cond(e.publishing(calls)) {
			return calls
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out after %s waiting for %s; calls:\n%s", waitLimit, what, dump(e.publishing(calls)))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// finalStatus holds once sha has a status other than pending.
func (e *env) finalStatus(sha string) func([]call) bool {
	op := "POST " + e.repoPath() + "/statuses/" + sha
	return func(calls []call) bool {
		for _, c := range calls {
			if c.Op == op && !strings.HasPrefix(c.Detail, "pending ") {
				return true
			}
		}
		return false
	}
}

// has holds once a call equal to want was made.
func has(want call) func([]call) bool {
	return func(calls []call) bool {
		for _, c := range calls {
			if c.Op == want.Op && c.Detail == want.Detail {
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
