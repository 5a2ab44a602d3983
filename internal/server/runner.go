package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/format"
	"github.com/tiergate/tiergate/internal/review/rules"
)

const (
	// maxAttempts bounds the runs of one job: a run that kills the process, or whose final
	// status cannot be published, is not retried forever.
	maxAttempts = 3
	// maxLineComments caps one review's line comments; the summary lists every finding.
	maxLineComments = 50
	// publishTimeout bounds publishing the error status of a run that ended without one.
	publishTimeout = time.Minute
	maxDescription = 140 // GitHub's limit on a status description

	pendingDescription = "Reviewing Flux changes…"
	forkDescription    = "fork PRs are not reviewed"
)

var errTimeout = errors.New("review timed out")

// process runs the stored job of r.key and settles it in the store: deleted once the PR got
// its final word, kept (to run again) when the server is stopping or the word could not be
// published.
func (s *Server) process(base context.Context, r *run) {
	j, ok, err := s.store.begin(r.key)
	if err != nil {
		s.log.Error("read job", "job", r.key, "err", err)
		return
	}
	if !ok {
		return
	}
	s.queue.setHead(r, j.HeadSHA)
	rn := &runner{s: s, ev: j.Event, head: j.HeadSHA}
	rn.log = s.log.With("delivery", j.Event.DeliveryID, "forge", j.Event.Forge, "repo", j.Event.Repo.FullName(),
		"pr", j.Event.PR, "kind", j.Kind, "attempt", j.Attempt)
	if j.HeadSHA != "" {
		rn.log = rn.log.With("head", j.HeadSHA)
	}

	start := time.Now()
	var result string
	var published bool
	if j.Attempt > maxAttempts {
		result, published = resultError, rn.fail(base, fmt.Sprintf("gave up after %d attempts", maxAttempts))
	} else {
		ctx, cancel := context.WithTimeoutCause(r.ctx, s.opts.ReviewTimeout, errTimeout)
		result, err = rn.safeRun(ctx, j, r)
		cancel()
		var sup *supersededError
		switch cause := context.Cause(ctx); {
		case err == nil:
			published = true
		case base.Err() != nil:
			rn.log.Info("review interrupted by shutdown; the job stays queued")
			if err := s.store.setAttempt(r.key, j.Seq, j.Attempt-1); err != nil {
				rn.log.Error("requeue job", "err", err)
			}
			return
		case errors.As(cause, &sup):
			result = resultSuperseded
			rn.log.Info("review superseded", "by", sup.head)
			if rn.pendingSet {
				rn.publishError(base, cause.Error())
			}
			published = true
		case errors.Is(cause, errTimeout):
			rn.log.Warn("review timed out", "err", redact(err.Error()))
			result, published = resultError, rn.fail(base, fmt.Sprintf("review timed out after %s", s.opts.ReviewTimeout))
		default:
			rn.log.Warn("review failed", "err", redact(err.Error()))
			result, published = resultError, rn.fail(base, err.Error())
		}
	}
	if result != "" {
		s.metrics.reviews.WithLabelValues(result).Inc()
		s.metrics.duration.Observe(time.Since(start).Seconds())
	}
	if !published && j.Attempt < maxAttempts {
		r.retry = true
		return
	}
	if err := s.store.finish(r.key, j.Seq); err != nil {
		rn.log.Error("delete finished job", "err", err)
	}
}

// runner is one run of a job.
type runner struct {
	s      *Server
	log    *slog.Logger
	client forge.Client
	ev     forge.Event
	head   string // the commit under review; "" until a recheck has read it
	// pendingSet is true once the head carries our pending status.
	pendingSet bool
}

// safeRun is run with a panic turned into an error.
func (rn *runner) safeRun(ctx context.Context, j job, r *run) (result string, err error) {
	defer func() {
		if p := recover(); p != nil {
			rn.log.Error("review panic", "panic", fmt.Sprint(p))
			result, err = resultError, errors.New("internal error")
		}
	}()
	return rn.run(ctx, j, r)
}

// run publishes status pending, the summary comment, the line comments and the final
// status, in that order: branch protection flips only once the comment is there. result is
// "" when the run ended without a review (a refused /recheck, a skipped fork).
func (rn *runner) run(ctx context.Context, j job, r *run) (result string, err error) {
	ev := &rn.ev
	rn.client, err = rn.s.opts.Forges.Client(*ev)
	if err != nil {
		return resultError, fmt.Errorf("forge client: %w", err)
	}
	comment := j.Recheck
	if j.Kind == kindRecheck {
		comment = ev.Comment
		if comment == nil {
			return "", errors.New("recheck job without its comment")
		}
	}
	if comment != nil {
		allowed, err := rn.recheck(ctx, comment)
		if err != nil {
			return "", err
		}
		if !allowed && j.Kind == kindRecheck {
			return "", nil
		}
		if allowed {
			rn.s.queue.setHead(r, rn.head)
			rn.log = rn.log.With("head", rn.head)
		}
	}
	if ev.Fork && rn.s.opts.SkipForkPRs {
		if err := rn.setStatus(ctx, forge.StateSuccess, forkDescription); err != nil {
			return resultError, err
		}
		rn.log.Info("fork PR not reviewed")
		return "", nil
	}
	if err := rn.setStatus(ctx, forge.StatePending, pendingDescription); err != nil {
		return resultError, err
	}
	rn.pendingSet = true

	repo, base, head, err := rn.s.opts.Fetcher.Fetch(ctx, *ev, rn.client)
	if err != nil {
		return resultError, fmt.Errorf("fetch: %w", err)
	}
	res, err := pipeline.Commits(ctx, repo, base, head, pipeline.Options{FailOn: rn.s.opts.FailOn})
	if err != nil {
		return resultError, fmt.Errorf("review: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return resultError, err // superseded or timed out while rendering: publish nothing of it
	}
	if err := rn.client.UpsertSummary(ctx, ev.Repo, ev.PR, format.Markdown(res.Report, format.MarkdownOptions{})); err != nil {
		return resultError, fmt.Errorf("publish summary comment: %w", err)
	}
	changed, err := rn.client.ChangedLines(ctx, ev.Repo, ev.PR)
	if err != nil {
		return resultError, fmt.Errorf("read changed lines: %w", err)
	}
	if comments := lineComments(res.Report, changed); len(comments) > 0 {
		if err := rn.client.PostReview(ctx, ev.Repo, ev.PR, rn.head, comments); err != nil {
			return resultError, fmt.Errorf("post line comments: %w", err)
		}
	}
	state, result := forge.StateSuccess, resultSuccess
	if res.Failed() {
		state, result = forge.StateFailure, resultFailure
	}
	if err := rn.setStatus(ctx, state, describe(res.Report)); err != nil {
		return resultError, err
	}
	rn.log.Info("review published", "result", result)
	return result, nil
}

// recheck answers a /recheck comment c: a user without write access gets a reply (not
// allowed); otherwise the comment gets a +1 and the run goes on with the PR's current head.
func (rn *runner) recheck(ctx context.Context, c *forge.Comment) (allowed bool, err error) {
	ev := &rn.ev
	ok, err := rn.client.CanWrite(ctx, ev.Repo, c.Author)
	if err != nil {
		return false, fmt.Errorf("check write access of %s: %w", c.Author, err)
	}
	if !ok {
		rn.log.Info("recheck refused: no write access", "user", c.Author)
		if err := rn.client.Reply(ctx, ev.Repo, ev.PR, "@"+c.Author+" only users with write access can /recheck"); err != nil {
			return false, fmt.Errorf("reply to %s: %w", c.Author, err)
		}
		return false, nil
	}
	if err := rn.client.React(ctx, ev.Repo, c.ID, "+1"); err != nil {
		return false, fmt.Errorf("react to comment: %w", err)
	}
	pr, err := rn.client.PullRequest(ctx, ev.Repo, ev.PR)
	if err != nil {
		return false, fmt.Errorf("read PR #%d: %w", ev.PR, err)
	}
	ev.HeadSHA, ev.BaseSHA, ev.Fork = pr.HeadSHA, pr.BaseSHA, pr.Fork
	rn.head = pr.HeadSHA
	return true, nil
}

func (rn *runner) setStatus(ctx context.Context, state forge.State, desc string) error {
	if err := rn.client.SetStatus(ctx, rn.ev.Repo, rn.head, state, desc); err != nil {
		return fmt.Errorf("set status %s: %w", state, err)
	}
	return nil
}

// fail publishes status error with reason on the head (when known) and reports whether the
// PR got it.
func (rn *runner) fail(base context.Context, reason string) bool {
	if rn.head == "" {
		return false // a recheck that failed before reading the head has nowhere to say so
	}
	return rn.publishError(base, reason)
}

// publishError sets status error, in a context of its own: the run's may have ended.
func (rn *runner) publishError(base context.Context, reason string) bool {
	if rn.client == nil {
		c, err := rn.s.opts.Forges.Client(rn.ev)
		if err != nil {
			rn.log.Error("publish error status: forge client", "err", err)
			return false
		}
		rn.client = c
	}
	ctx, cancel := context.WithTimeout(base, publishTimeout)
	defer cancel()
	if err := rn.setStatus(ctx, forge.StateError, oneLine(reason)); err != nil {
		rn.log.Error("publish error status", "err", redact(err.Error()))
		return false
	}
	return true
}

// lineComments are the new findings on lines the PR changed, at most maxLineComments.
func lineComments(rep *review.Report, changed map[string]map[int]bool) []forge.LineComment {
	var out []forge.LineComment
	seen := map[forge.LineComment]bool{}
	for _, f := range rep.Findings {
		if f.Status != rules.StatusNew || f.File == "" || !changed[f.File][f.Line] {
			continue
		}
		body := fmt.Sprintf("**%s** (%s): %s", f.Rule, f.Severity, f.Message)
		if f.Suggestion != "" {
			body += "\n\n" + f.Suggestion
		}
		c := forge.LineComment{Path: f.File, Line: f.Line, Body: body}
		if seen[c] {
			continue
		}
		seen[c] = true
		out = append(out, c)
		if len(out) == maxLineComments {
			break
		}
	}
	return out
}

// describe is the final status description: new findings by severity and the clusters, e.g.
// "2 new errors, 1 new warning · 3 clusters".
func describe(rep *review.Report) string {
	return oneLine(format.NewCounts(rep) + " · " + plural(len(rep.Clusters), "cluster", "clusters"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// credentials in URLs (https://user:token@host) must not reach a status or a log.
var urlUserinfo = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\s]*@`)

// redact removes credentials from the URLs in s.
func redact(s string) string { return urlUserinfo.ReplaceAllString(s, "$1") }

// oneLine makes s a status description: credentials in URLs removed, one line, at most
// maxDescription characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(redact(s)), " ")
	if utf8.RuneCountInString(s) <= maxDescription {
		return s
	}
	r := []rune(s)
	return string(r[:maxDescription-1]) + "…"
}

// short is the 7-character form of a commit sha.
func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
