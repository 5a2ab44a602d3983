package ghaction

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/tiergate/tiergate/internal/forge/forgetest"
	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/review/format"
)

const (
	demo = "../../testdata/scenarios/demo/"
	// demoFile holds the demo scenario's findings, on line 2.
	demoFile = "databases/web-data.yaml"
	// The fixture payloads' repository and PR.
	repoPath = "/repos/Codertocat/Hello-World"
	prNumber = 2
)

// prRepo is a checkout as actions/checkout leaves it with fetch-depth 0: the PR branch
// (demo base, then demo head) and main, which moved on after the PR branched off.
type prRepo struct {
	dir                  string
	forkPoint, head, tip string // commit shas; tip is main's, the payload's base.sha
}

func newPRRepo(t *testing.T) *prRepo {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	commit := func(msg string, n int) string {
		if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
			t.Fatal(err)
		}
		sig := &object.Signature{Name: "t", Email: "t@example.invalid", When: time.Unix(int64(1700000000+n), 0)}
		h, err := wt.Commit(msg, &git.CommitOptions{Author: sig})
		if err != nil {
			t.Fatal(err)
		}
		return h.String()
	}
	p := &prRepo{dir: dir}
	replaceTree(t, dir, demo+"base")
	p.forkPoint = commit("base", 0)
	replaceTree(t, dir, demo+"head")
	p.head = commit("head", 1)
	err = wt.Checkout(&git.CheckoutOptions{Hash: plumbing.NewHash(p.forkPoint), Branch: "refs/heads/main", Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("fleet\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.tip = commit("readme", 2)
	return p
}

// replaceTree makes dir's work tree a copy of src.
func replaceTree(t *testing.T, dir, src string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != ".git" {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// eventFile writes a real GitHub payload (forge-fixtures/github/webhooks/name) with the
// PR's base and head set to base and head; fork makes the head repository another one.
func eventFile(t *testing.T, name, base, head string, fork bool) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(forgetest.FixturesDir(t), "github", "webhooks", name))
	if err != nil {
		t.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal(data, &payload); err != nil {
		t.Fatal(err)
	}
	pr := payload["pull_request"].(map[string]any)
	pr["base"].(map[string]any)["sha"] = base
	h := pr["head"].(map[string]any)
	h["sha"] = head
	if fork {
		h["repo"] = map[string]any{"id": 99, "name": "Hello-World", "full_name": "someone/Hello-World",
			"owner": map[string]any{"login": "someone"}}
	}
	out, _ := json.Marshal(payload)
	path := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// harness is one PR, its checkout and a fake GitHub.
type harness struct {
	t    *testing.T
	repo *prRepo
	gh   *forgetest.Server
	env  Env
	log  bytes.Buffer
}

func newHarness(t *testing.T) *harness {
	h := &harness{t: t, repo: newPRRepo(t), gh: forgetest.NewGitHub(t)}
	h.gh.AsActionsToken() // the workflow token writes as github-actions[bot]
	h.gh.SetFiles(prNumber, forgetest.File{Name: demoFile, Patch: "@@ -0,0 +1,3 @@\n+apiVersion: v1\n+kind: PersistentVolumeClaim\n+metadata:"})
	tmp := t.TempDir()
	h.env = Env{EventName: "pull_request", APIURL: h.gh.URL, Workspace: h.repo.dir,
		Output: filepath.Join(tmp, "output"), StepSummary: filepath.Join(tmp, "summary")}
	for _, f := range []string{h.env.Output, h.env.StepSummary} {
		if err := os.WriteFile(f, nil, 0o644); err != nil { // the runner creates both, empty
			t.Fatal(err)
		}
	}
	return h
}

// run runs the action on the fixture payload name; the Actions token may not read GET /user.
func (h *harness) run(name string, fork bool, opts Options) (*Result, error) {
	h.env.EventPath = eventFile(h.t, name, h.repo.tip, h.repo.head, fork)
	h.gh.FailNext("/user", 403, nil)
	opts.Token, opts.Log = forgetest.Token, &h.log
	return Run(context.Background(), h.env, opts)
}

func (h *harness) read(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatal(err)
	}
	return string(data)
}

// markdown is the summary comment of the demo PR as `bot review` and the server write it.
func (h *harness) markdown() string {
	repo, err := gitrepo.Open(h.repo.dir)
	if err != nil {
		h.t.Fatal(err)
	}
	res, err := pipeline.Commits(context.Background(), repo, plumbing.NewHash(h.repo.forkPoint), plumbing.NewHash(h.repo.head), pipeline.Options{})
	if err != nil {
		h.t.Fatal(err)
	}
	return format.Markdown(res.Report, format.MarkdownOptions{})
}

// calls are the fake's requests as "METHOD path detail" lines: a status's state, context and
// description; a comment's marker and verdict lines; a review's commit and line comments.
func (h *harness) calls() []string {
	var out []string
	for _, c := range h.gh.Calls() {
		line := c.Method + " " + strings.Replace(c.Path, h.repo.head, "{head}", 1)
		body, _ := c.Body.(map[string]any)
		str := func(k string) string { s, _ := body[k].(string); return s }
		switch {
		case strings.Contains(c.Path, "/statuses/"):
			line += fmt.Sprintf(" %s [%s] %s", str("state"), str("context"), str("description"))
		case strings.Contains(c.Path, "/comments") && body != nil:
			lines := strings.SplitN(str("body"), "\n", 3)
			line += " " + strings.Join(lines[:2], " ")
		case strings.HasSuffix(c.Path, "/reviews") && c.Method == "POST":
			line += " " + str("event") + " on " + strings.Replace(str("commit_id"), h.repo.head, "{head}", 1)
			cs, _ := body["comments"].([]any)
			for _, v := range cs {
				m := v.(map[string]any)
				rule, _, _ := strings.Cut(m["body"].(string), ":")
				line += fmt.Sprintf("; %v:%v %v %s", m["path"], m["line"], m["side"], rule)
			}
		}
		out = append(out, strings.ReplaceAll(line, h.repo.head, "{head}"))
	}
	return out
}

func itoa(n int64) string { return fmt.Sprint(n) }
