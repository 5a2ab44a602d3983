// Package forge speaks to GitHub and Gitea/Forgejo: it parses and authenticates webhook
// deliveries, and publishes a review (commit status, summary comment, line comments,
// reactions). It knows nothing of Flux: it moves text and line numbers.
package forge

import (
	"context"
	"errors"
)

// Kind names a forge family. Forgejo is served by the Gitea implementation.
type Kind string

const (
	GitHub Kind = "github"
	Gitea  Kind = "gitea"
)

// ErrBadSignature is returned when a delivery's HMAC signature is missing or wrong.
var ErrBadSignature = errors.New("bad or missing webhook signature")

// EventType is what a delivery asks tiergate to do.
type EventType string

const (
	// EventReview: a PR was opened, pushed to, reopened or marked ready for review.
	EventReview EventType = "review"
	// EventComment: a comment on a PR (it may hold /recheck).
	EventComment EventType = "comment"
	// EventPing: the forge checks the hook.
	EventPing EventType = "ping"
	// EventIgnored: anything else; answered 2xx and dropped.
	EventIgnored EventType = "ignored"
)

// Repo identifies a repository on a forge.
type Repo struct {
	Owner    string `json:"owner"`
	Name     string `json:"name"`
	CloneURL string `json:"clone_url"`
}

// FullName is "owner/name".
func (r Repo) FullName() string { return r.Owner + "/" + r.Name }

// Event is a verified, parsed webhook delivery.
type Event struct {
	Forge      Kind      `json:"forge"`
	DeliveryID string    `json:"delivery_id"`
	Type       EventType `json:"type"`
	Repo       Repo      `json:"repo"`
	PR         int       `json:"pr"`
	// HeadSHA and BaseSHA are the PR's commits at delivery time (review events).
	HeadSHA string `json:"head_sha,omitempty"`
	BaseSHA string `json:"base_sha,omitempty"`
	// Fork is true when the PR's head repository differs from the base repository.
	Fork bool `json:"fork,omitempty"`
	// Comment is set for EventComment.
	Comment *Comment `json:"comment,omitempty"`
	// InstallationID is the GitHub App installation of the delivery (0 otherwise).
	InstallationID int64 `json:"installation_id,omitempty"`
}

// Comment is a PR conversation comment.
type Comment struct {
	ID     int64  `json:"id"`
	Body   string `json:"body"`
	Author string `json:"author"`
	// AuthorIsBot is true for bot and app accounts (their comments never trigger runs).
	AuthorIsBot bool `json:"author_is_bot,omitempty"`
}

// State is a commit status state.
type State string

const (
	StatePending State = "pending"
	StateSuccess State = "success"
	StateFailure State = "failure"
	StateError   State = "error"
)

// StatusContext is the commit status context that branch protection can require.
const StatusContext = "tiergate"

// LineComment is one review comment on a line of the PR's head version of Path.
type LineComment struct {
	Path string
	Line int
	Body string
}

// PullRequest is the current state of a PR, as the forge API reports it.
type PullRequest struct {
	HeadSHA string
	BaseSHA string
	Fork    bool
}

// Client publishes to one forge. Every method retries transient failures (5xx, 429, rate
// limits, honouring Retry-After) with backoff until ctx ends; other errors are returned.
// A write that creates something (the summary comment, a review, a reply carrying its
// ReplyMarker) is not repeated after a lost answer (a reset, an attempt timeout): the
// forge is asked whether it was made first (writeOnce).
type Client interface {
	// SetStatus sets the commit status of sha (context StatusContext); description is one line.
	SetStatus(ctx context.Context, repo Repo, sha string, state State, description string) error
	// UpsertSummary creates the PR's summary comment or edits the newest one that starts
	// with the hidden marker (format.Marker) and was written by this bot, unless its body is
	// body already; the bot's older marker comments are deleted (never another author's).
	UpsertSummary(ctx context.Context, repo Repo, pr int, body string) error
	// ChangedLines returns, per file path, the head-side line numbers that the PR diff touches
	// (the lines a review comment may be attached to).
	ChangedLines(ctx context.Context, repo Repo, pr int) (map[string]map[int]bool, error)
	// PostReview posts one review with line comments on commit sha.
	PostReview(ctx context.Context, repo Repo, pr int, sha string, comments []LineComment) error
	// CanWrite reports whether user has write (push) permission on repo.
	CanWrite(ctx context.Context, repo Repo, user string) (bool, error)
	// React adds a reaction (e.g. "+1", "eyes") to a PR conversation comment.
	React(ctx context.Context, repo Repo, commentID int64, reaction string) error
	// Reply posts a plain comment on the PR.
	Reply(ctx context.Context, repo Repo, pr int, body string) error
	// PullRequest reads the PR's current head and base.
	PullRequest(ctx context.Context, repo Repo, pr int) (*PullRequest, error)
	// CloneAuth returns HTTP basic-auth credentials to fetch repo (empty: anonymous).
	CloneAuth(ctx context.Context, repo Repo) (user, password string, err error)
}
