package forge

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode"

	"code.gitea.io/sdk/gitea"
	"github.com/google/go-github/v66/github"
)

// ParseGitHub authenticates a GitHub delivery (X-Hub-Signature-256 over the raw body)
// and then parses it. An empty secret refuses every delivery.
func ParseGitHub(h http.Header, body, secret []byte) (*Event, error) {
	sig, ok := strings.CutPrefix(h.Get("X-Hub-Signature-256"), "sha256=")
	if !ok {
		return nil, fmt.Errorf("%w: no X-Hub-Signature-256 sha256= header", ErrBadSignature)
	}
	if err := checkMAC(body, sig, secret); err != nil {
		return nil, err
	}
	ev := &Event{Forge: GitHub, DeliveryID: headerText(h.Get("X-GitHub-Delivery")), Type: EventIgnored}
	name := h.Get("X-GitHub-Event")
	payload, err := jsonPayload(h, body)
	if err != nil {
		return nil, fmt.Errorf("GitHub %s delivery %s: %w", name, ev.DeliveryID, err)
	}
	switch name {
	case "ping", "pull_request", "issue_comment":
	default:
		return ev, nil
	}
	parsed, err := github.ParseWebHook(name, payload)
	if err != nil {
		return nil, fmt.Errorf("GitHub %s delivery %s: %w", name, ev.DeliveryID, err)
	}
	switch e := parsed.(type) {
	case *github.PingEvent:
		ev.Type = EventPing
		ev.InstallationID = e.GetInstallation().GetID()
	case *github.PullRequestEvent:
		githubPR(ev, e)
	case *github.IssueCommentEvent:
		githubComment(ev, e)
	}
	if ev.Type != EventPing {
		if err := checkRepo(ev.Repo); err != nil {
			return nil, fmt.Errorf("GitHub %s delivery %s: %w", name, ev.DeliveryID, err)
		}
	}
	return ev, nil
}

// checkRepo refuses a payload's repository whose owner or name could not be a path segment
// of the forge's API, or whose clone URL is not http(s).
func checkRepo(r Repo) error {
	for _, f := range []struct{ what, v string }{{"owner", r.Owner}, {"name", r.Name}} {
		switch {
		case f.v == "":
			return fmt.Errorf("incomplete payload: repository %s is missing", f.what)
		case f.v == "." || f.v == ".." || strings.ContainsAny(f.v, "/\\") || strings.IndexFunc(f.v, unicode.IsControl) >= 0:
			return fmt.Errorf("malformed payload: repository %s %q is not a valid name", f.what, f.v)
		}
	}
	if r.CloneURL == "" {
		return errors.New("incomplete payload: repository clone_url is missing")
	}
	u, err := url.Parse(r.CloneURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("malformed payload: repository clone_url %q is not an http(s) URL", r.CloneURL)
	}
	return nil
}

func githubPR(ev *Event, e *github.PullRequestEvent) {
	pr := e.GetPullRequest()
	ev.Repo = githubRepo(e.GetRepo())
	ev.PR = e.GetNumber()
	if ev.PR == 0 {
		ev.PR = pr.GetNumber()
	}
	ev.HeadSHA = pr.GetHead().GetSHA()
	ev.BaseSHA = pr.GetBase().GetSHA()
	ev.Fork = githubFork(pr)
	ev.InstallationID = e.GetInstallation().GetID()
	switch e.GetAction() {
	case "opened", "synchronize", "reopened", "ready_for_review":
		ev.Type = EventReview
	}
}

func githubComment(ev *Event, e *github.IssueCommentEvent) {
	ev.Repo = githubRepo(e.GetRepo())
	ev.InstallationID = e.GetInstallation().GetID()
	if e.GetIssue().GetPullRequestLinks() == nil {
		return // a plain issue
	}
	ev.PR = e.GetIssue().GetNumber()
	c := e.GetComment()
	login := c.GetUser().GetLogin()
	ev.Comment = &Comment{
		ID:     c.GetID(),
		Body:   c.GetBody(),
		Author: login,
		AuthorIsBot: c.GetUser().GetType() == "Bot" || e.GetSender().GetType() == "Bot" ||
			strings.HasSuffix(login, "[bot]"),
	}
	if e.GetAction() == "created" {
		ev.Type = EventComment
	}
}

func githubRepo(r *github.Repository) Repo {
	return Repo{Owner: r.GetOwner().GetLogin(), Name: r.GetName(), CloneURL: r.GetCloneURL()}
}

// githubFork: GitHub drops head.repo when the fork it came from is deleted.
func githubFork(pr *github.PullRequest) bool {
	head, base := pr.GetHead().GetRepo(), pr.GetBase().GetRepo()
	switch {
	case head == nil || base == nil:
		return head == nil && base != nil
	case head.GetID() != 0 && base.GetID() != 0:
		return head.GetID() != base.GetID()
	default:
		return head.GetFullName() != base.GetFullName()
	}
}

// ParseGitea authenticates a Gitea or Forgejo delivery (X-Forgejo-Signature or
// X-Gitea-Signature: bare hex HMAC-SHA256 of the JSON payload) and then parses it. Forgejo
// also sends the X-Gitea-* headers, so its own are read first.
func ParseGitea(h http.Header, body, secret []byte) (*Event, error) {
	sig := giteaHeader(h, "Signature")
	if sig == "" {
		return nil, fmt.Errorf("%w: no X-Forgejo-Signature or X-Gitea-Signature header", ErrBadSignature)
	}
	if err := checkMAC(giteaSigned(h, body), sig, secret); err != nil {
		return nil, err
	}
	ev := &Event{Forge: Gitea, DeliveryID: headerText(giteaHeader(h, "Delivery")), Type: EventIgnored}
	name := giteaHeader(h, "Event")
	payload, err := jsonPayload(h, body)
	if err != nil {
		return nil, fmt.Errorf("delivery %s of Gitea event %s: %w", ev.DeliveryID, name, err)
	}
	if name != "pull_request" && name != "issue_comment" {
		return ev, nil
	}
	var p giteaPayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return nil, fmt.Errorf("delivery %s of Gitea event %s: %w", ev.DeliveryID, name, err)
	}
	ev.Repo = giteaRepo(p.Repository)
	if err := checkRepo(ev.Repo); err != nil {
		return nil, fmt.Errorf("delivery %s of Gitea event %s: %w", ev.DeliveryID, name, err)
	}
	if name == "pull_request" {
		giteaPR(ev, &p, giteaHeader(h, "Event-Type"))
	} else {
		giteaComment(ev, &p)
	}
	return ev, nil
}

// giteaSigned is what Gitea and Forgejo sign: the JSON payload, which is the body, or for a
// hook set to send a form, the form's payload field (services/webhook/deliver.go:
// newDefaultRequest hands addDefaultHeaders the task's PayloadContent, not the form it
// encodes). So a form is decoded before its signature is checked; one that does not decode
// signs nothing and is refused.
func giteaSigned(h http.Header, body []byte) []byte {
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		return body
	}
	form, err := url.ParseQuery(string(body))
	if err != nil || !form.Has("payload") {
		return nil
	}
	return []byte(form.Get("payload"))
}

// giteaPayload holds the fields tiergate reads from Gitea's PullRequestPayload and
// IssueCommentPayload (modules/structs/hook.go); the SDK has no webhook types.
type giteaPayload struct {
	Action      string             `json:"action"`
	Number      int64              `json:"number"`
	PullRequest *gitea.PullRequest `json:"pull_request"`
	Issue       *gitea.Issue       `json:"issue"`
	Comment     *gitea.Comment     `json:"comment"`
	Repository  *gitea.Repository  `json:"repository"`
	IsPull      bool               `json:"is_pull"`
}

func giteaPR(ev *Event, p *giteaPayload, eventType string) {
	pr := p.PullRequest
	if pr == nil {
		return
	}
	ev.PR = int(p.Number)
	if ev.PR == 0 {
		ev.PR = int(pr.Index)
	}
	if pr.Head != nil {
		ev.HeadSHA = pr.Head.Sha
	}
	if pr.Base != nil {
		ev.BaseSHA = pr.Base.Sha
	}
	ev.Fork = giteaFork(pr)
	switch {
	case p.Action == "opened", p.Action == "synchronized", p.Action == "reopened",
		eventType == "pull_request_sync":
		ev.Type = EventReview
	}
}

func giteaComment(ev *Event, p *giteaPayload) {
	if p.Issue == nil || p.Comment == nil || !(p.IsPull || p.Issue.PullRequest != nil || p.PullRequest != nil) {
		return // a plain issue
	}
	ev.PR = int(p.Issue.Index)
	login := ""
	if p.Comment.Poster != nil {
		login = p.Comment.Poster.UserName
	}
	ev.Comment = &Comment{ID: p.Comment.ID, Body: p.Comment.Body, Author: login,
		AuthorIsBot: strings.HasSuffix(login, "[bot]")}
	if p.Action == "created" {
		ev.Type = EventComment
	}
}

func giteaRepo(r *gitea.Repository) Repo {
	if r == nil {
		return Repo{}
	}
	owner := ""
	if r.Owner != nil {
		owner = r.Owner.UserName
	}
	if owner == "" {
		owner, _, _ = strings.Cut(r.FullName, "/")
	}
	return Repo{Owner: owner, Name: r.Name, CloneURL: r.CloneURL}
}

// giteaFork compares the head and base repositories by id, then by name; trimmed
// payloads that name neither count as same-repository PRs.
func giteaFork(pr *gitea.PullRequest) bool {
	if pr.Head == nil || pr.Base == nil {
		return false
	}
	head, base := branchRepoID(pr.Head), branchRepoID(pr.Base)
	if head != 0 && base != 0 {
		return head != base
	}
	if pr.Head.Repository != nil && pr.Base.Repository != nil {
		return pr.Head.Repository.FullName != pr.Base.Repository.FullName
	}
	return false
}

func branchRepoID(b *gitea.PRBranchInfo) int64 {
	if b.RepoID != 0 || b.Repository == nil {
		return b.RepoID
	}
	return b.Repository.ID
}

// giteaHeader reads X-Forgejo-<name>, else X-Gitea-<name>.
func giteaHeader(h http.Header, name string) string {
	if v := h.Get("X-Forgejo-" + name); v != "" {
		return v
	}
	return h.Get("X-Gitea-" + name)
}

// headerText makes a header value valid UTF-8: the signature does not cover headers, and
// the Event is stored as JSON, which would otherwise change the delivery id on the way
// through the queue (and break duplicate detection after a restart).
func headerText(v string) string { return strings.ToValidUTF8(v, "\uFFFD") }

// checkMAC compares, in constant time, a hex HMAC-SHA256 of body with the expected one.
func checkMAC(body []byte, sigHex string, secret []byte) error {
	if len(secret) == 0 {
		return fmt.Errorf("%w: no webhook secret is configured", ErrBadSignature)
	}
	got, err := hex.DecodeString(sigHex)
	if err != nil {
		return fmt.Errorf("%w: signature is not hex", ErrBadSignature)
	}
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	if !hmac.Equal(got, m.Sum(nil)) {
		return ErrBadSignature
	}
	return nil
}

// jsonPayload returns the JSON of a delivery: the body, or its "payload" field when the
// hook was configured to send a form.
func jsonPayload(h http.Header, body []byte) ([]byte, error) {
	payload := body
	if mt, _, _ := mime.ParseMediaType(h.Get("Content-Type")); mt == "application/x-www-form-urlencoded" {
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, fmt.Errorf("form body: %w", err)
		}
		payload = []byte(form.Get("payload"))
	}
	if !json.Valid(payload) {
		return nil, fmt.Errorf("payload is not valid JSON")
	}
	return payload, nil
}

// ParseGitHubPayload parses a GitHub pull_request or pull_request_target event payload that
// arrives without a signature: the file that the Actions runner writes at
// $GITHUB_EVENT_PATH. name is the event name ($GITHUB_EVENT_NAME). The event's Type is
// EventReview whatever the payload's action: the workflow chose when to run.
func ParseGitHubPayload(name string, payload []byte) (*Event, error) {
	switch name {
	case "pull_request", "pull_request_target":
	default:
		return nil, fmt.Errorf("GitHub %s event: not a pull request event (want pull_request or pull_request_target)", name)
	}
	parsed, err := github.ParseWebHook("pull_request", payload)
	if err != nil {
		return nil, fmt.Errorf("GitHub %s event: %w", name, err)
	}
	e := parsed.(*github.PullRequestEvent)
	if e.PullRequest == nil {
		return nil, fmt.Errorf("GitHub %s event: incomplete payload: pull_request is missing", name)
	}
	ev := &Event{Forge: GitHub}
	githubPR(ev, e)
	ev.Type = EventReview
	if err := checkRepo(ev.Repo); err != nil {
		return nil, fmt.Errorf("GitHub %s event: %w", name, err)
	}
	if ev.PR <= 0 {
		return nil, fmt.Errorf("GitHub %s event: incomplete payload: the pull request number is missing", name)
	}
	return ev, nil
}
