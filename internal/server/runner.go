package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
	// finalTimeout bounds setting a review's final status once the run recorded it as final:
	// that request no longer ends with the run (a shutdown), so it must end before bot
	// serve's grace (Kubernetes' default terminationGracePeriodSeconds is 30).
	finalTimeout = 20 * time.Second
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
	rn := &runner{s: s, ev: j.Event, head: j.HeadSHA, key: r.key, seq: j.Seq, qrun: r}
	defer rn.closeRepo()
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
		case errors.As(cause, &sup) && rn.stillStored(j):
			// The job that cancelled it is not newer in the store: run it again.
			rn.log.Info("review cancelled for an older job; it runs again")
			r.retry = true
			if counted {
				if err := s.store.setAttempt(r.key, j.Seq, j.Attempt-1); err != nil {
					rn.log.Error("requeue job", "err", err)
				}
			}
			return
		case errors.As(cause, &sup):
			result, published = resultSuperseded, true
			rn.yield(base, j)
		case errors.Is(err, errLoginUnknown):
			rn.waitLogin(base, r, j, counted)
			return
		case errors.Is(cause, errTimeout):
			rn.log.Warn("review timed out", "err", redact(err.Error()))
			result, published = resultError, rn.fail(base, fmt.Sprintf("review timed out after %s", s.opts.ReviewTimeout))
		default:
			rn.log.Warn("review failed", "err", redact(err.Error()))
			result, published = resultError, rn.fail(base, err.Error())
		}
	}
	if published && result != resultSuperseded && !rn.settled {
		rn.settleReplacedAfter(base, j) // the run failed before it could
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
	finish := func() error { return s.store.finish(r.key, j.Seq) }
	if rn.headFinal && err == nil { // a run that failed after it may have set error on the head
		finish = func() error { return s.store.finishReviewed(r.key, j.Seq, rn.head, s.now()) }
	}
	if err := finish(); err != nil {
		rn.log.Error("delete finished job", "err", err)
		return
	}
	rn.log.Info("job finished", "job", r.key)
}

// waitLogin ends a /recheck run whose bot login is unknown. While the learner still asks
// and the /recheck was accepted less than LoginRetry.GiveUp ago, it is queued again after
// LoginRetry.Recheck, the run not counted; after that it is given up with a reply to its
// author, and the job is deleted.
func (rn *runner) waitLogin(base context.Context, r *run, j job, counted bool) {
	lr := rn.s.opts.LoginRetry
	if rn.s.learning.Load() && rn.s.now().Sub(j.Enqueued) < lr.GiveUp {
		rn.log.Info("recheck waits for the bot's login", "user", j.Event.Comment.Author, "in", lr.Recheck.String())
		r.retry, r.delay = true, lr.Recheck
		if counted {
			if err := rn.s.store.setAttempt(r.key, j.Seq, j.Attempt-1); err != nil {
				rn.log.Error("requeue job", "err", err)
			}
		}
		return
	}
	rn.log.Warn("recheck given up: the bot's login is unknown", "user", j.Event.Comment.Author, "after", lr.GiveUp.String())
	ctx, cancel := context.WithTimeout(base, publishTimeout)
	defer cancel()
	msg := fmt.Sprintf("@%s /recheck not run: the bot's account is unknown (the forge did not answer GET /user for %s); push again or set --bot-login",
		j.Event.Comment.Author, lr.GiveUp)
	if err := rn.replyOnce(ctx, j, msg); err != nil {
		rn.log.Error("reply that the recheck is given up", "err", redact(err.Error()))
	}
	if err := rn.s.store.finish(r.key, j.Seq); err != nil {
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
	key    string        // the job's key
	seq    uint64        // the job's store sequence
	qrun   *run          // the queue's run of the job
	head   string        // the commit under review; "" for a recheck
	repo   *gitrepo.Repo // once fetched; closed when the job is settled
	// pendingSet is true once the request setting our pending status on the head was started.
	pendingSet bool
	// ended is true once a status other than pending was published on the head by this run:
	// no other path of the run sets another (a head gets at most one final status).
	ended bool
	// final is true once the run recorded that it publishes its head's final status;
	// reviewed once it found its head's own final status (a resumed job). Either way
	// nothing of this run marks the head superseded.
	final, reviewed bool
	// settled is true once the heads the job replaced got their final word; decided once
	// the run knows its head is the newest of them.
	settled, decided bool
	// headFinal is true once the run published its head's review's final status (success
	// or failure), or found it published: a later delivery of the head runs nothing.
	headFinal bool
}

func (rn *runner) closeRepo() {
	if rn.repo != nil {
		rn.repo.Close()
	}
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
		return "", rn.recheck(ctx, j)
	}
	if ev.Fork && rn.s.opts.SkipForkPRs {
		if err := rn.setStatus(ctx, forge.StateSuccess, forkDescription); err != nil {
			return resultError, err
		}
		rn.log.Info("fork PR not reviewed")
		return "", nil
	}
	// reviewed: an interrupted run published this head's review (its final status); done:
	// it published a final word of any kind and the job replaced no head. The job is done
	// only once the PR shows no other head: a newer push's delivery may have been lost
	// while the server was down, and nothing but this run would then review it. With
	// heads it replaced, only once the fetch shows that none of them is newer.
	reviewed, done := false, false
	var state forge.State // of the head, as the forge shows it
	if j.Started {
		var err error
		if state, err = rn.headStatus(ctx); err != nil {
			return "", err
		}
		reviewed = state == forge.StateSuccess || state == forge.StateFailure
		done = state != "" && state != forge.StatePending && len(j.Replaced) == 0
		rn.reviewed, rn.headFinal = reviewed, reviewed
	}
	prHead, pr := rn.prHead(ctx)
	if done && (prHead.IsZero() || prHead.String() == rn.head) {
		rn.log.Info("the interrupted run published its final status already", "state", state)
		rn.settled = true
		return "", nil
	}
	// When the forge names another head, this one may be stale: pending waits for the
	// fetch that tells which is newer.
	early := prHead.String() == rn.head && !reviewed
	if early {
		if err := rn.setPending(ctx); err != nil {
			return resultError, err
		}
	}

	// Before the fetcher asks for credentials or opens a connection.
	if err := checkCloneURL(rn.s.opts.GitHost, ev.Forge, ev.Repo.CloneURL); err != nil {
		return resultError, err
	}
	fetchStart := time.Now()
	repo, base, head, err := rn.s.opts.Fetcher.Fetch(ctx, *ev, rn.client)
	if err != nil {
		if gone(err, rn.head) && !prHead.IsZero() && prHead.String() != rn.head {
			// The PR's ref no longer reaches this head (a force push): the forge's head is
			// the PR's now, and this head's failure must not cost it its review.
			rn.log.Info("the head is gone from the PR's ref; the forge's head is reviewed", "err", redact(err.Error()))
			return rn.giveWay(ctx, j, prHead, pr)
		}
		return resultError, fmt.Errorf("fetch: %w", err)
	}
	rn.repo = repo
	if newer := newestHead(repo, head, prHead, j.Replaced); newer != head {
		return rn.giveWay(ctx, j, newer, pr)
	}
	rn.decided = true
	if reviewed || done {
		rn.log.Info("the interrupted run published the review of the newest head already", "state", state)
		return "", rn.settleReplaced(ctx, j)
	}
	if !early {
		if err := rn.setPending(ctx); err != nil {
			return resultError, err
		}
	}
	if err := rn.settleReplaced(ctx, j); err != nil {
		return resultError, err
	}
	fetched := time.Since(fetchStart).Seconds()
	res, err := pipeline.Commits(ctx, repo, base, head, pipeline.Options{FailOn: rn.s.opts.FailOn, Cache: rn.s.cache,
		AllowRemote: rn.s.opts.AllowRemote, Fork: ev.Fork, Limits: rn.s.opts.Limits, Helm: rn.s.opts.Helm,
		ChartCacheDir: filepath.Join(rn.s.opts.DataDir, "charts")})
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
	final, err := publish.Review(ctx, rn.client, t, res, publish.Options{Ledger: postedLedger{rn.s.store, jobKey(rn.ev), rn.log},
		Resumed: j.Started, BeforeFinal: func() error { return rn.markFinal(j) }, FinalContext: rn.finalContext,
		WriteContext: rn.writeContext})
	if err != nil {
		return resultError, err
	}
	rn.headFinal = true
	result = resultSuccess
	if final == forge.StateFailure {
		result = resultFailure
	}
	rn.log.Info("review published", "result", result)
	return result, nil
}

// recheck answers the job's /recheck comment: a user without write access gets a reply and
// nothing runs; otherwise the comment gets a +1 and a review of the PR's current head is
// stored and queued as a push's would be. It never reads or changes the PR's review job
// before that, so it may run while that review runs.
func (rn *runner) recheck(ctx context.Context, j job) error {
	ev := rn.ev
	c := ev.Comment
	if c == nil {
		return errors.New("recheck job without its comment")
	}
	// Its token's own user has write access: a comment the bot wrote must not run it, so
	// none runs while the bot's login is unknown. With a learner the run never asks the
	// forge itself: it waits, without a worker, until the learner knows (process).
	var self string
	var err error
	if rn.s.learner {
		var ok bool
		if self, ok = rn.s.knownLogin(ev.Forge); !ok {
			return errLoginUnknown
		}
	} else {
		self, err = rn.s.botLogin(ctx, ev.Forge, rn.client)
	}
	if err != nil {
		rn.log.Warn("recheck not run: the bot's login is unknown (the forge did not answer; --bot-login names it)",
			"user", c.Author, "err", redact(err.Error()))
		return fmt.Errorf("the bot's login is unknown: %w", err)
	}
	if self == "" {
		rn.log.Warn("recheck not run: the forge does not tell the bot's login, so the comment may be the bot's own; set --bot-login",
			"user", c.Author)
		return nil
	}
	if strings.EqualFold(self, c.Author) {
		rn.log.Info("recheck by the bot's own account ignored", "user", c.Author)
		return nil
	}
	ok, err := rn.client.CanWrite(ctx, ev.Repo, c.Author)
	if err != nil {
		return fmt.Errorf("check write access of %s: %w", c.Author, err)
	}
	if !ok {
		rn.log.Info("recheck refused: no write access", "user", c.Author)
		if err := rn.replyOnce(ctx, j, "@"+c.Author+" only users with write access can /recheck"); err != nil {
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
	nj := &job{Event: ev, Kind: kindReview, HeadSHA: pr.HeadSHA, Enqueued: rn.s.now().UTC()}
	stored, err := rn.s.store.acceptUnlessNewer(key, nj, seq, false)
	if err != nil {
		return err
	}
	if !stored {
		rn.log.Info("recheck: a newer review of the PR was accepted meanwhile", "user", c.Author)
		return nil
	}
	rn.s.queue.submit(key, kindReview, nj.HeadSHA, nj.Seq)
	rn.log.Info("recheck queued a review", "user", c.Author, "head", pr.HeadSHA)
	return nil
}

// replyOnce answers the job's comment with body, marked with the comment's id
// (forge.ReplyMarker). A run after one that began (job.Started: stopped, killed or put back)
// first looks for that answer among the PR's comments: the forge may have posted it while
// its answer to the request never came.
func (rn *runner) replyOnce(ctx context.Context, j job, body string) error {
	marker := forge.ReplyMarker(j.Event.Comment.ID)
	if f, ok := rn.client.(forge.ReplyFinder); ok && j.Started {
		found, err := f.HasReply(ctx, rn.ev.Repo, rn.ev.PR, marker)
		if err != nil {
			return fmt.Errorf("look for the answer to comment %d: %w", j.Event.Comment.ID, err)
		}
		if found {
			rn.log.Info("the comment was answered already", "comment", j.Event.Comment.ID)
			return nil
		}
	}
	return rn.client.Reply(ctx, rn.ev.Repo, rn.ev.PR, body+"\n\n"+marker)
}

// prHead reads the PR's current head from the forge: webhooks are not delivered in order,
// so a push's delivery may come after a newer push's (stale). The zero hash when it cannot
// be read; pr is the PR as read (its base and fork flag for a review of that head).
func (rn *runner) prHead(ctx context.Context) (plumbing.Hash, forge.PullRequest) {
	pr, err := rn.client.PullRequest(ctx, rn.ev.Repo, rn.ev.PR)
	if err != nil {
		rn.log.Warn("read PR to check its head", "err", redact(err.Error()))
		return plumbing.ZeroHash, forge.PullRequest{}
	}
	if !plumbing.IsHash(pr.HeadSHA) {
		return plumbing.ZeroHash, forge.PullRequest{}
	}
	return plumbing.NewHash(pr.HeadSHA), *pr
}

// gone reports whether err is a fetch that succeeded without reaching head.
func gone(err error, head string) bool {
	var missing *gitrepo.MissingCommitsError
	return errors.As(err, &missing) && slices.Contains(missing.Commits, head)
}

// newestHead is the newest of the PR's heads known to the job: its own head, the heads of
// the jobs it replaced (deliveries come in any order) and the forge's current head prHead.
// By ancestry first. The forge's head wins unless the mirror lacks it or it is an
// ancestor of the newest (the API may lag behind the push it just delivered); so among
// unrelated heads (a force push) the forge's head wins, delivered or not: delivery order
// says nothing about push order.
func newestHead(repo *gitrepo.Repo, head, prHead plumbing.Hash, replaced []replacedHead) plumbing.Hash {
	newest := head
	for _, r := range replaced {
		h := plumbing.NewHash(r.SHA)
		if h != newest && repo.IsAncestor(newest, h) {
			newest = h
		}
	}
	if prHead.IsZero() || prHead == newest || !repo.HasCommit(prHead) || repo.IsAncestor(prHead, newest) {
		return newest
	}
	return prHead
}

// giveWay hands the job over to newer, a newer head of the PR. A review of newer is stored
// in the job's place (unless a newer job was accepted meanwhile) and queued, with this
// head among the heads it replaced: if this head may be pending, the run of the stored job
// sets it `error "superseded by <head>"` once it has set its own head pending
// (settleReplaced), naming the head it reviews. giveWay sets no status itself: newer may
// be superseded in turn before its run sets it pending, and a status naming newer would
// then name a head that never gets a result. When only the forge names newer (pr, as
// read), its delivery may never come or may have been reviewed already: the job is marked
// resumed, so its run first reads newer's status and reviews it only when it has no final
// one. A client that cannot read statuses back (forge.PublishedFinder) queues nothing then
// (newer's own delivery reviews it) and this head gets its superseded status at once.
func (rn *runner) giveWay(ctx context.Context, j job, newer plumbing.Hash, pr forge.PullRequest) (string, error) {
	rn.log.Info("a newer head of the PR is known: not reviewed", "newer", newer.String())
	pending := (rn.pendingSet || j.Pending) && !rn.reviewed && !rn.final
	ev := rn.ev
	ev.HeadSHA = newer.String()
	// Started carries over: a run of newer may have published some of its review.
	nj := &job{Event: ev, Kind: kindReview, HeadSHA: ev.HeadSHA, Enqueued: rn.s.now().UTC(),
		Replaced: append(slices.Clone(j.Replaced), replacedHead{SHA: rn.head, Pending: pending, Final: rn.reviewed || rn.final})}
	if !slices.ContainsFunc(j.Replaced, func(r replacedHead) bool { return r.SHA == newer.String() }) {
		if _, ok := rn.client.(forge.PublishedFinder); !ok {
			// Without reading newer's status a run could review it twice: its own
			// delivery reviews it (or did), in a job that does not know this head.
			if pending {
				if err := rn.setSuperseded(ctx, newer.String()); err != nil {
					return resultError, err
				}
			}
			rn.settled = true
			return resultSuperseded, nil
		}
		if pr.HeadSHA == ev.HeadSHA && plumbing.IsHash(pr.BaseSHA) {
			nj.Event.BaseSHA, nj.Event.Fork = pr.BaseSHA, pr.Fork
		}
		nj.Started, nj.FromForge = true, true
		rn.log.Info("the forge's head of the PR has no delivery here: queued", "newer", newer.String())
	}
	stored, err := rn.s.store.acceptUnlessNewer(rn.key, nj, j.Seq, true)
	if err != nil {
		return resultSuperseded, fmt.Errorf("store a review of the PR's head %s: %w", short(ev.HeadSHA), err)
	}
	rn.settled = true // the stored job's run settles the heads this one replaced
	if stored {
		rn.s.queue.submit(rn.key, kindReview, ev.HeadSHA, nj.Seq)
	} else if pending {
		// The newer job inherited this head (recorded pending by setPending): its run
		// settles it. Recorded again in case that record failed.
		if err := rn.s.store.markPending(rn.key, rn.seq, rn.head); err != nil {
			rn.log.Error("record the pending status", "err", err)
		}
	} else if err := rn.s.store.settle(rn.key, rn.head); err != nil {
		rn.log.Error("record the superseded status", "err", err)
	}
	if pending {
		rn.log.Info("the pending head is left to the newer job's run", "newer", newer.String())
	}
	return resultSuperseded, nil
}

// setSuperseded sets the head `error "superseded by <newer>"`. The request is not cancelled
// with the run: a newer push arriving while it is on its way must not leave the run unsure
// whether the head got its final word (the forge may have applied it), which would make
// its yield leave the head to a run that sets a second one. Bounded by finalTimeout, under
// bot serve's grace after SIGTERM.
func (rn *runner) setSuperseded(ctx context.Context, newer string) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finalTimeout)
	defer cancel()
	return rn.setStatus(sctx, forge.StateError, (&supersededError{head: newer}).Error())
}

// yield ends a run cancelled by the job of another head. If this run fetched and the job
// stored now reviews an ancestor of this head (a delivery that came late), this head takes
// its place again, as a resumed job: its pending status stays and the review runs again.
// Otherwise the stored job's run settles this head (it inherited it, recorded pending if
// this run set it so), once it has fetched: it names the head it reviews, which the stored
// head may not be (a later push may supersede it before its run sets it pending).
func (rn *runner) yield(base context.Context, j job) {
	stored, ok, err := rn.s.store.job(rn.key)
	if err != nil || !ok || stored.Kind != kindReview || rn.repo == nil {
		if err != nil {
			rn.log.Error("read the job that superseded the review", "err", err)
		}
		if !rn.pendingSet && !j.Pending {
			rn.clearStarted(rn.head)
		}
		return
	}
	rn.log.Info("review superseded", "by", stored.HeadSHA)
	mine, other := plumbing.NewHash(rn.head), plumbing.NewHash(stored.HeadSHA)
	switch {
	case rn.repo.IsAncestor(other, mine):
		nj := &job{Event: rn.ev, Kind: kindReview, HeadSHA: rn.head, Enqueued: rn.s.now().UTC(), Started: true,
			Pending: rn.pendingSet || j.Pending}
		back, err := rn.s.store.reclaim(rn.key, stored.HeadSHA, nj)
		if err != nil {
			rn.log.Error("store the review of the newer head again", "err", err)
		}
		if back {
			rn.log.Info("the head that cancelled the review is older: reviewed again", "older", stored.HeadSHA)
		}
	case rn.repo.IsAncestor(mine, other):
		if (rn.pendingSet || j.Pending) && !rn.ended && !rn.final && !rn.reviewed {
			// The stored job's run settles this head once it has fetched, naming the head
			// it reviews: the stored head may itself be superseded before it is reviewed.
			if err := rn.s.store.markPending(rn.key, rn.seq, rn.head); err != nil {
				rn.log.Error("record the pending status", "err", err)
			}
			rn.log.Info("the pending head is left to the newer job's run", "newer", stored.HeadSHA)
		}
	}
}

// stillStored reports whether j is still the key's stored job.
func (rn *runner) stillStored(j job) bool {
	stored, ok, err := rn.s.store.job(rn.key)
	return err == nil && ok && stored.Seq == j.Seq
}

// clearStarted records in the key's stored job that head needs no final word from it.
func (rn *runner) clearStarted(head string) {
	if err := rn.s.store.settle(rn.key, head); err != nil {
		rn.log.Error("record the superseded status", "err", err)
	}
}

// settleReplaced gives every head the job replaced that may be pending status error
// "superseded by <head>"; when the run failed before it knew its head is the newest, every
// replaced head gets an error saying that none was reviewed.
func (rn *runner) settleReplaced(ctx context.Context, j job) error {
	var done []string
	for _, r := range j.Replaced {
		if r.Final && !rn.stillPending(ctx, r.SHA) {
			continue // its own review's status is final
		}
		desc := (&supersededError{head: rn.head}).Error()
		if !rn.decided {
			// Which head is newest is not known and none was reviewed: each says so, the
			// newest too (a /recheck reviews it).
			desc = "not reviewed: the review of " + short(rn.head) + ", delivered after it, failed"
		} else if !r.Pending {
			continue // the bot never set it pending: no status of it
		}
		if err := ctx.Err(); err != nil {
			rn.recordSettled(done)
			return err // a newer job's run, which inherited the rest, settles them
		}
		if err := rn.setDetached(ctx, r.SHA, desc); err != nil {
			rn.recordSettled(done)
			return fmt.Errorf("set status error on %s: %w", short(r.SHA), err)
		}
		done = append(done, r.SHA)
	}
	rn.settled = true
	rn.recordSettled(done)
	return nil
}

// setDetached sets status error desc on sha, a replaced head, in a context not cancelled
// with the run (bounded by finalTimeout): a newer push cancelling the run while the
// request is on its way must not leave unknown whether the forge applied it, or the newer
// job's run, which inherits the head, would set it a second final status.
func (rn *runner) setDetached(ctx context.Context, sha, desc string) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finalTimeout)
	defer cancel()
	return rn.client.SetStatus(sctx, rn.ev.Repo, sha, forge.StateError, desc)
}

// recordSettled records in the key's stored job, whichever it is, that heads got their
// final word.
func (rn *runner) recordSettled(heads []string) {
	if len(heads) == 0 {
		return
	}
	if err := rn.s.store.settle(rn.key, heads...); err != nil {
		rn.log.Error("record the superseded statuses", "err", err)
	}
}

// markFinal records that this run publishes its head's final status, before it does: in the
// queue, so that a newer head no longer cancels the run (it runs after), and in the store,
// so that the newer job's run does not mark the head superseded. It fails when a newer head
// cancelled the run already: then no final status is set. A store that takes no write does
// not stop the review: the queue holds the newer job back until this run ends.
func (rn *runner) markFinal(j job) error {
	if err := rn.s.queue.setFinal(rn.qrun); err != nil {
		return err
	}
	rn.final = true
	if err := rn.s.store.markFinal(rn.key, j.Seq, rn.head); err != nil {
		rn.log.Error("record the final status", "err", err)
	}
	return nil
}

// finalContext is the context of the final status of a run recorded as final (markFinal):
// detached from the run's cancellation (a shutdown, the review timeout; no newer head
// cancels it any more), bounded by finalTimeout, so a SIGTERM then does not leave the head
// pending with its summary and line comments posted. A cancellation meanwhile is logged.
func (rn *runner) finalContext(ctx context.Context) (context.Context, context.CancelFunc) {
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finalTimeout)
	stop := context.AfterFunc(ctx, func() {
		rn.log.Info("run cancelled while it sets its final status: the status request goes on, bounded", "bound", finalTimeout.String())
	})
	return fctx, func() { stop(); cancel() }
}

// writeContext is the context of a write to the PR (summary comment, line comments, check
// run): detached from the run's cancellation (a newer head, a shutdown, the review
// timeout), which only starts a grace of finalTimeout for it to complete. While the run
// goes on the write is bounded by the forge client's attempts alone: a bound of its own
// below the attempt timeout (30 s) would end a write whose answer is slow in error instead
// of looking for what it made (forge.writeOnce). The queue starts a newer run of the PR
// only once this run has ended, so a write once started completes before the newer run
// lists the PR's comments and reviews: a superseded run's summary cannot land after the
// newer one's.
func (rn *runner) writeContext(ctx context.Context) (context.Context, context.CancelFunc) {
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(finalTimeout, cancel) })
	return wctx, func() { stop(); cancel() }
}

// stillPending reports whether the forge shows sha, a head whose run began to publish its
// final status, without one (the run ended before the status went out). It is false when
// the status cannot be read: a final status is never overwritten on a guess.
func (rn *runner) stillPending(ctx context.Context, sha string) bool {
	f, ok := rn.client.(forge.PublishedFinder)
	if !ok {
		return false
	}
	state, err := f.HeadStatus(ctx, rn.ev.Repo, sha)
	if err != nil {
		rn.log.Warn("read the status of a replaced head; left as it is", "sha", sha, "err", redact(err.Error()))
		return false
	}
	return state == forge.StatePending || state == ""
}

// settleReplacedAfter is settleReplaced for a run that ended without it, in a context of
// its own.
func (rn *runner) settleReplacedAfter(base context.Context, j job) {
	if rn.head == "" || rn.client == nil {
		return
	}
	ctx, cancel := context.WithTimeout(base, publishTimeout)
	defer cancel()
	if err := rn.settleReplaced(ctx, j); err != nil {
		rn.log.Error("settle the replaced heads", "err", redact(err.Error()))
	}
}

// headStatus is the newest status of the head ("" when the client cannot read it back).
func (rn *runner) headStatus(ctx context.Context) (forge.State, error) {
	f, ok := rn.client.(forge.PublishedFinder)
	if !ok {
		return "", nil
	}
	state, err := f.HeadStatus(ctx, rn.ev.Repo, rn.head)
	if err != nil {
		return "", fmt.Errorf("read the status of the head: %w", err)
	}
	return state, nil
}

// setPending sets status pending on the head.
func (rn *runner) setPending(ctx context.Context) error {
	// Set before the request: one cancelled in flight may still have reached the forge.
	// Recorded in the store too, so that whichever run settles the head after a kill
	// knows it may be pending; a head never set pending gets no status but its review's.
	rn.pendingSet = true
	if err := rn.s.store.markPending(rn.key, rn.seq, rn.head); err != nil {
		rn.log.Error("record the pending status", "err", err)
	}
	return rn.setStatus(ctx, forge.StatePending, pendingDescription)
}

func (rn *runner) setStatus(ctx context.Context, state forge.State, desc string) error {
	if err := rn.client.SetStatus(ctx, rn.ev.Repo, rn.head, state, desc); err != nil {
		return fmt.Errorf("set status %s: %w", state, err)
	}
	rn.ended = rn.ended || state != forge.StatePending
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

// publishError sets status error, in a context of its own: the run's may have ended. A
// head this run already gave a final status keeps it (true).
func (rn *runner) publishError(base context.Context, reason string) bool {
	if rn.ended {
		rn.log.Info("the head has its final status from this run already; not set again", "reason", redact(reason))
		return true
	}
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
