package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/publish"
)

const (
	// maxAttempts bounds the runs of one job: a run that kills the process, or whose final
	// status cannot be published, is not retried forever.
	maxAttempts = 3
	// publishTimeout bounds publishing the error status of a run that ended without one.
	publishTimeout = time.Minute
	// storeRetryDelay is how long a job whose store cannot be read waits before it runs again.
	storeRetryDelay = 5 * time.Second
	maxDescription  = 140 // GitHub's limit on a status description

	pendingDescription = "Reviewing Flux changes…"
	forkDescription    = "fork PRs are not reviewed"
)

var errTimeout = errors.New("review timed out")

// process runs the stored job of r.key and settles it in the store: deleted once the PR got
// its final word, kept (to run again) when the server is stopping or the word could not be
// published.
func (s *Server) process(base context.Context, r *run) {
	j, ok, err := s.store.begin(r.key)
	counted := err == nil
	if err != nil {
		// A store that takes no write (a full disk) must not leave the job waiting
		// unseen until a restart: it runs uncounted, so its head gets a final status.
		s.log.Error("count the run of a job", "job", r.key, "err", err)
		j, ok, err = s.store.job(r.key)
		if err != nil {
			s.log.Error("read job; trying again later", "job", r.key, "err", err)
			r.retry, r.delay = true, s.storeRetry
			return
		}
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
		result, err = rn.safeRun(ctx, j)
		cancel()
		var sup *supersededError
		switch cause := context.Cause(ctx); {
		case err == nil:
			published = true
		case base.Err() != nil:
			rn.log.Info("review interrupted by shutdown; the job stays queued")
			if !counted {
				return
			}
			if err := s.store.setAttempt(r.key, j.Seq, j.Attempt-1); err != nil {
				rn.log.Error("requeue job", "err", err)
			}
			return
		case errors.As(cause, &sup):
			result = resultSuperseded
			rn.log.Info("review superseded", "by", sup.head)
			if rn.pendingSet {
				rn.publishError(base, cause.Error()) // in a fresh context: the run's has ended
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
	if !published && !counted {
		r.retry, r.delay = true, s.storeRetry // neither the forge nor the store works: wait
		return
	}
	if !published && j.Attempt < maxAttempts {
		r.retry = true // not counted: the job runs again
		return
	}
	if result != "" { // the job is finished or given up
		s.metrics.reviews.WithLabelValues(result).Inc()
		s.metrics.duration.Observe(time.Since(start).Seconds())
	}
	if err := s.store.finish(r.key, j.Seq); err != nil {
		rn.log.Error("delete finished job", "err", err)
		return
	}
	rn.log.Info("job finished", "job", r.key)
}

// runner is one run of a job.
type runner struct {
	s      *Server
	log    *slog.Logger
	client forge.Client
	ev     forge.Event
	head   string // the commit under review; "" for a recheck
	// pendingSet is true once the request setting our pending status on the head was started.
	pendingSet bool
}

// safeRun is run with a panic turned into an error.
func (rn *runner) safeRun(ctx context.Context, j job) (result string, err error) {
	defer func() {
		if p := recover(); p != nil {
			rn.log.Error("review panic", "panic", fmt.Sprint(p))
			result, err = resultError, errors.New("internal error")
		}
	}()
	return rn.run(ctx, j)
}

// run publishes status pending, the summary comment, the line comments, the check run (when
// the client can publish one) and the final status, in that order: branch protection flips
// only once the comment is there. result is "" when the run ended without a review (a
// /recheck, a skipped fork).
func (rn *runner) run(ctx context.Context, j job) (result string, err error) {
	ev := &rn.ev
	rn.client, err = rn.s.opts.Forges.Client(*ev)
	if err != nil {
		return resultError, fmt.Errorf("forge client: %w", err)
	}
	if j.Kind == kindRecheck {
		return "", rn.recheck(ctx)
	}
	if ev.Fork && rn.s.opts.SkipForkPRs {
		if err := rn.setStatus(ctx, forge.StateSuccess, forkDescription); err != nil {
			return resultError, err
		}
		rn.log.Info("fork PR not reviewed")
		return "", nil
	}
	prHead := rn.prHead(ctx)
	// Set before the request: one cancelled in flight may still have reached the forge.
	rn.pendingSet = true
	if err := rn.setStatus(ctx, forge.StatePending, pendingDescription); err != nil {
		return resultError, err
	}

	// Before the fetcher asks for credentials or opens a connection.
	if err := checkCloneURL(rn.s.opts.GitHost, ev.Forge, ev.Repo.CloneURL); err != nil {
		return resultError, err
	}
	fetchStart := time.Now()
	repo, base, head, err := rn.s.opts.Fetcher.Fetch(ctx, *ev, rn.client)
	if err != nil {
		return resultError, fmt.Errorf("fetch: %w", err)
	}
	defer repo.Close()
	if newer, ok := stale(repo, head, prHead); ok {
		return rn.giveWay(ctx, j, newer)
	}
	fetched := time.Since(fetchStart).Seconds()
	res, err := pipeline.Commits(ctx, repo, base, head, pipeline.Options{FailOn: rn.s.opts.FailOn, Cache: rn.s.cache,
		AllowRemote: rn.s.opts.AllowRemote, Fork: ev.Fork, Limits: rn.s.opts.Limits, Helm: rn.s.opts.Helm})
	if err != nil {
		return resultError, fmt.Errorf("review: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return resultError, err // superseded or timed out while rendering: publish nothing of it
	}
	publishStart := time.Now()
	defer func() {
		res.Report.Timings["fetch"] = fetched
		res.Report.Timings["publish"] = time.Since(publishStart).Seconds()
		rn.s.metrics.observePhases(res.Report.Timings)
	}()
	t := publish.Target{Repo: ev.Repo, PR: ev.PR, Head: rn.head}
	state, err := publish.Review(ctx, rn.client, t, res, publish.Options{Ledger: postedLedger{rn.s.store, jobKey(rn.ev), rn.log}})
	if err != nil {
		return resultError, err
	}
	result = resultSuccess
	if state == forge.StateFailure {
		result = resultFailure
	}
	rn.log.Info("review published", "result", result)
	return result, nil
}

// recheck answers the job's /recheck comment: a user without write access gets a reply and
// nothing runs; otherwise the comment gets a +1 and a review of the PR's current head is
// stored and queued as a push's would be. It never reads or changes the PR's review job
// before that, so it may run while that review runs.
func (rn *runner) recheck(ctx context.Context) error {
	ev := rn.ev
	c := ev.Comment
	if c == nil {
		return errors.New("recheck job without its comment")
	}
	ok, err := rn.client.CanWrite(ctx, ev.Repo, c.Author)
	if err != nil {
		return fmt.Errorf("check write access of %s: %w", c.Author, err)
	}
	if !ok {
		rn.log.Info("recheck refused: no write access", "user", c.Author)
		if err := rn.client.Reply(ctx, ev.Repo, ev.PR, "@"+c.Author+" only users with write access can /recheck"); err != nil {
			return fmt.Errorf("reply to %s: %w", c.Author, err)
		}
		return nil
	}
	if err := rn.client.React(ctx, ev.Repo, c.ID, "+1"); err != nil {
		return fmt.Errorf("react to comment: %w", err)
	}
	// A review accepted while the PR is read is of a head at least as new as the one read.
	seq, err := rn.s.store.lastSeq()
	if err != nil {
		return err
	}
	pr, err := rn.client.PullRequest(ctx, ev.Repo, ev.PR)
	if err != nil {
		return fmt.Errorf("read PR #%d: %w", ev.PR, err)
	}
	if !plumbing.IsHash(pr.HeadSHA) {
		return fmt.Errorf("read PR #%d: head %q is not a commit", ev.PR, pr.HeadSHA)
	}
	ev.Type, ev.Comment = forge.EventReview, nil
	ev.HeadSHA, ev.BaseSHA, ev.Fork = pr.HeadSHA, pr.BaseSHA, pr.Fork
	key := jobKey(ev)
	j := &job{Event: ev, Kind: kindReview, HeadSHA: pr.HeadSHA, Enqueued: rn.s.now().UTC()}
	stored, err := rn.s.store.acceptUnlessNewer(key, j, seq)
	if err != nil {
		return err
	}
	if !stored {
		rn.log.Info("recheck: a newer review of the PR was accepted meanwhile", "user", c.Author)
		return nil
	}
	rn.s.queue.submit(key, kindReview, j.HeadSHA)
	rn.log.Info("recheck queued a review", "user", c.Author, "head", pr.HeadSHA)
	return nil
}

// prHead reads the PR's current head from the forge: webhooks are not delivered in order,
// so a push's delivery may come after a newer push's (stale). "" when it cannot be read.
func (rn *runner) prHead(ctx context.Context) plumbing.Hash {
	pr, err := rn.client.PullRequest(ctx, rn.ev.Repo, rn.ev.PR)
	if err != nil {
		rn.log.Warn("read PR to check its head", "err", redact(err.Error()))
		return plumbing.ZeroHash
	}
	if !plumbing.IsHash(pr.HeadSHA) {
		return plumbing.ZeroHash
	}
	return plumbing.NewHash(pr.HeadSHA)
}

// stale reports whether the job's head is an ancestor of the PR's current head, prHead, so
// that a newer push's review supersedes it. The forge's answer alone is not enough: its
// API may lag behind the push it just delivered (then prHead is older), and after a force
// push the two are unrelated; in both cases the job's head is reviewed.
func stale(repo *gitrepo.Repo, head, prHead plumbing.Hash) (plumbing.Hash, bool) {
	if prHead.IsZero() || prHead == head || !repo.IsAncestor(head, prHead) {
		return plumbing.ZeroHash, false
	}
	return prHead, true
}

// giveWay ends the review of a stale head as a push of newer would: status error
// "superseded by <newer>". The newer head's own delivery reviews it, unless this job's
// arrival cancelled that review: then it is stored and queued again (as a /recheck's would
// be, unless a newer job was accepted meanwhile).
func (rn *runner) giveWay(ctx context.Context, j job, newer plumbing.Hash) (string, error) {
	rn.log.Info("the PR's head moved on: not reviewed", "pr_head", newer.String())
	if err := rn.setStatus(ctx, forge.StateError, (&supersededError{head: newer.String()}).Error()); err != nil {
		return resultError, err
	}
	key := jobKey(rn.ev)
	if rn.s.queue.takeSuperseded(key, newer.String()) {
		ev := rn.ev
		ev.HeadSHA = newer.String()
		nj := &job{Event: ev, Kind: kindReview, HeadSHA: ev.HeadSHA, Enqueued: rn.s.now().UTC()}
		stored, err := rn.s.store.acceptUnlessNewer(key, nj, j.Seq)
		if err != nil {
			return resultSuperseded, fmt.Errorf("store a review of the PR's head %s: %w", short(ev.HeadSHA), err)
		}
		if stored {
			rn.s.queue.submit(key, kindReview, ev.HeadSHA)
		}
	}
	return resultSuperseded, nil
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
		return false // a recheck has no status to say so
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
	if err := rn.setStatus(ctx, forge.StateError, oneLine(rn.s.hideDirs(reason))); err != nil {
		rn.log.Error("publish error status", "err", redact(err.Error()))
		return false
	}
	return true
}

// credentials in URLs (https://user:token@host) must not reach a status or a log.
var urlUserinfo = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\s]*@`)

// redact removes credentials from the URLs in s.
func redact(s string) string { return urlUserinfo.ReplaceAllString(s, "$1") }

// urlOrigin is the scheme://[userinfo@]host[:port] of a URL; netAddr the addresses of a
// network error ("dial tcp 10.0.0.1:443: ...", "read tcp a:1->b:2: ...").
var (
	urlOrigin = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s"'?#]*`)
	netAddr   = regexp.MustCompile(`\b(dial|read|write) (tcp[46]?|udp[46]?|unix) [^\s]+?: `)
)

// stripHosts removes the scheme and host of every URL in s, keeping the path ("/" when it
// has none), and the addresses of network errors: a status must not tell internal hosts.
func stripHosts(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range urlOrigin.FindAllStringIndex(s, -1) {
		b.WriteString(s[last:m[0]])
		if m[1] == len(s) || s[m[1]] != '/' {
			b.WriteByte('/')
		}
		last = m[1]
	}
	b.WriteString(s[last:])
	return netAddr.ReplaceAllString(b.String(), "$1 $2: ")
}

// localDir is a folder of this machine whose path a status must not show, and the name it
// shows instead.
type localDir struct{ path, name string }

// localDirs are the server's data folder and the temporary folder, each also as its
// symlinks resolve, longest first so that a nested one is named by its own name.
func localDirs(dataDir string) []localDir {
	var out []localDir
	add := func(dir, name string) {
		if abs, err := filepath.Abs(dir); err == nil && abs != string(filepath.Separator) {
			out = append(out, localDir{abs, name})
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil && real != string(filepath.Separator) {
			out = append(out, localDir{real, name})
		}
	}
	add(dataDir, "$DATA_DIR")
	add(os.TempDir(), "$TMPDIR")
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].path) > len(out[j].path) })
	return out
}

// hideDirs replaces the paths of the server's local folders in s with their names: an
// error status is public on the PR and must not tell how the host is laid out.
func (s *Server) hideDirs(text string) string {
	for _, d := range s.localDirs {
		text = replacePath(text, d.path, d.name)
	}
	return text
}

// replacePath replaces dir in s where it is a whole path or a path's leading folder.
func replacePath(s, dir, name string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, dir)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(dir)
		whole := end == len(s) || !isPathByte(s[end]) || s[end] == filepath.Separator
		if whole && (i == 0 || !isPathByte(s[i-1])) {
			b.WriteString(s[:i] + name)
		} else {
			b.WriteString(s[:end])
		}
		s = s[end:]
	}
}

// isPathByte reports whether c can continue a file name in an error text.
func isPathByte(c byte) bool {
	return c == '/' || c == '.' || c == '-' || c == '_' || c == '~' ||
		'0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// oneLine makes s a status description: credentials in URLs removed, the hosts of URLs and
// network addresses removed, one line, at most maxDescription characters. A longer one loses
// its middle: an error chain says what was being done first and why it failed last, and a
// reader needs both.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(stripHosts(redact(s))), " ")
	if utf8.RuneCountInString(s) <= maxDescription {
		return s
	}
	r := []rune(s)
	head := (maxDescription - 1) / 2
	tail := maxDescription - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// short is the 7-character form of a commit sha.
func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// postedLedger keeps a PR's posted line comments in the job store: a /recheck or a
// redelivery on the same head must not pile up identical reviews.
type postedLedger struct {
	store *store
	key   string
	log   *slog.Logger
}

func (l postedLedger) Posted(fp string) (bool, error) { return l.store.posted(l.key, fp) }

// MarkPosted records fp. A failure is logged, not returned: the review stands without the
// record, and at worst a re-run posts the same comments again.
func (l postedLedger) MarkPosted(fp string) error {
	if err := l.store.markPosted(l.key, fp); err != nil {
		l.log.Error("record line comments posted", "err", err)
	}
	return nil
}
