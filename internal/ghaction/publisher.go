package ghaction

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/publish"
)

// publisher posts one run's review to its PR. Once GitHub refuses the token (403) it stops
// asking: every later request would be refused too.
type publisher struct {
	client forge.Client // nil: nothing to publish (no token, or neither comment nor status)
	opts   Options
	target publish.Target
	log    io.Writer
	// pendingSet: the pending status reached the PR, so the run must end with another.
	pendingSet bool
	refused    error
}

func newPublisher(env Env, opts Options, ev *forge.Event) (*publisher, error) {
	p := &publisher{opts: opts, log: opts.Log, target: publish.Target{Repo: ev.Repo, PR: ev.PR, Head: ev.HeadSHA}}
	if opts.Token == "" || (!opts.Comment && !opts.Status) {
		fmt.Fprintln(p.log, "tiergate: nothing is posted to the pull request (no token, or comment and status are off)")
		return p, nil
	}
	gh, err := forge.NewGitHub(forge.GitHubOptions{APIURL: env.APIURL, Token: opts.Token})
	if err != nil {
		return nil, err
	}
	if p.client, err = gh.For(0); err != nil {
		return nil, err
	}
	return p, nil
}

// active reports whether requests may still be sent.
func (p *publisher) active() bool { return p.client != nil && p.refused == nil }

// pending sets status pending on the head; a refusal is noted, not returned.
func (p *publisher) pending(ctx context.Context) error {
	if !p.active() || !p.opts.Status {
		return nil
	}
	err := p.client.SetStatus(ctx, p.target.Repo, p.target.Head, forge.StatePending, pendingDescription)
	if err = p.refuse(err); err != nil {
		return fmt.Errorf("set status pending: %w", err)
	}
	p.pendingSet = p.refused == nil
	return nil
}

// publish posts the review. When GitHub refuses part of it after the pending status was
// set (the job may set statuses but not comment), the final status is still set.
func (p *publisher) publish(ctx context.Context, res *pipeline.Result) error {
	if !p.active() {
		return nil
	}
	// Resumed: a re-run of the workflow (or another event on the same head) finds this
	// head's review on the PR already and posts its line comments once, as the server's
	// resumed runs do; the summary is edited in place (forge.HeadMarker keeps it unchanged).
	state, err := publish.Review(ctx, p.client, p.target, res, publish.Options{
		NoComments: !p.opts.Comment, NoStatus: !p.opts.Status, Resumed: true})
	if err = p.refuse(err); err != nil || p.refused == nil || !p.pendingSet {
		return err
	}
	if err := p.client.SetStatus(ctx, p.target.Repo, p.target.Head, state, publish.Describe(res.Report)); err != nil {
		fmt.Fprintf(p.log, "tiergate: set the final status: %v\n", err)
	}
	return nil
}

// fail ends a pending status with error and reason's first line; the run is failing
// already, so a publishing error is only logged.
func (p *publisher) fail(ctx context.Context, reason error) {
	if !p.pendingSet || !p.active() {
		return
	}
	desc := strings.Join(strings.Fields(reason.Error()), " ")
	if err := p.client.SetStatus(ctx, p.target.Repo, p.target.Head, forge.StateError, desc); err != nil {
		fmt.Fprintf(p.log, "tiergate: set status error: %v\n", err)
	}
}

// refuse turns a 403 into a warning in the job log and remembers it; other errors pass.
func (p *publisher) refuse(err error) error {
	if err == nil || !forge.IsForbidden(err) {
		return err
	}
	p.refused = err
	fmt.Fprintf(p.log, "::warning title=tiergate::%s\n", escapeCommand(
		"could not post to the pull request, the review is in the step summary: "+err.Error()))
	return nil
}
