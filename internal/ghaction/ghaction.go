// Package ghaction runs a review inside a GitHub Actions job: it reads the pull_request
// event that the runner wrote, reviews the merge-base and the head of the PR in the
// workspace checkout, publishes to the PR with the workflow token through package publish
// (the same summary comment, line comments and commit status as the webhook server), and
// writes the step summary and step outputs. A token that may not write (a pull request
// from a fork gets a read-only one) leaves the review in the step summary only; the exit
// status is the same either way.
package ghaction

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/publish"
	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/review/format"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// Options are the action's inputs.
type Options struct {
	// Token is the workflow's GITHUB_TOKEN (or a personal access token); empty publishes
	// nothing to the PR.
	Token string
	// Repo is the git checkout to review; empty: Env.Workspace, else ".".
	Repo string
	// ConfigPath, Clusters, FailOn and FailOnUnreviewed are those of `bot review`.
	ConfigPath       string
	Clusters         []string
	FailOn           string
	FailOnUnreviewed bool
	// AllowRemote lists the hosts remote resources and charts may be fetched from, as
	// `bot review --allow-remote`; a PR from a fork fetches nothing.
	AllowRemote []string
	// Helm renders HelmRelease charts (a sandbox Pool the caller owns); nil: in process.
	Helm render.HelmRenderer
	// Cache keeps builds for the review (a persistent one: render.Cache.Persist); nil: one
	// in memory for this review. ChartCacheDir keeps pulled charts ("": in memory only).
	Cache         *render.Cache
	ChartCacheDir string
	// Comment posts or updates the summary comment and posts the line comments.
	Comment bool
	// Status sets the commit status "tiergate": pending, then success or failure.
	Status bool
	// JSONPath and SARIFPath, when set, receive the report in those formats.
	JSONPath, SARIFPath string
	// Version is the tool version written into SARIF.
	Version string
	// Log receives the job log lines (workflow commands included); nil discards them.
	Log io.Writer
}

// Result is how the step ends when the review ran.
type Result struct {
	// Failed: a new finding is at or above the fail-on threshold, or something was not
	// reviewed under fail-on-unreviewed (exit status 1).
	Failed bool
	// Published: everything asked for (comment, status) reached the PR.
	Published bool
}

const pendingDescription = "Reviewing Flux changes…"

// Run reviews the PR of env's event and publishes the review. An error means the review
// could not run or could not be published for a reason other than a refused token (exit
// status 2); the step summary and outputs are written whenever the review ran.
func Run(ctx context.Context, env Env, opts Options) (*Result, error) {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	ev, err := readEvent(env)
	if err != nil {
		return nil, err
	}
	p, err := newPublisher(env, opts, ev)
	if err != nil {
		return nil, err
	}
	if err := p.pending(ctx); err != nil {
		return nil, err
	}
	res, err := reviewPR(ctx, env, opts, ev)
	if err == nil {
		err = writeReports(res, opts)
	}
	if err != nil {
		p.fail(ctx, err)
		return nil, err
	}
	perr := p.publish(ctx, res)
	if perr != nil {
		p.fail(ctx, perr)
	}

	md := format.Markdown(res.Report, format.MarkdownOptions{})
	desc := publish.Describe(res.Report)
	fmt.Fprintf(opts.Log, "tiergate: %s\n", desc)
	summary := md
	if p.refused != nil {
		summary = refusedNote + md
	}
	out := &Result{Failed: res.Failed(), Published: p.client != nil && p.refused == nil && perr == nil}
	if !out.Published {
		annotate(opts.Log, res)
	}
	result := "success"
	if out.Failed {
		result = "failure"
	}
	err = errors.Join(perr,
		appendFile(env.StepSummary, "GITHUB_STEP_SUMMARY", summary),
		writeOutputs(env.Output, []output{
			{"result", result},
			{"new-findings", strconv.Itoa(newFindings(res))},
			{"description", desc},
			{"published", strconv.FormatBool(out.Published)},
		}))
	return out, err
}

// annotate writes a workflow command per new finding with a file and line, so that a PR
// the token may not comment on still shows the findings on its lines. GitHub shows the
// first 10 of each level per step.
func annotate(log io.Writer, res *pipeline.Result) {
	for _, a := range publish.Annotations(res.Report) {
		level := map[string]string{"failure": "error", "warning": "warning"}[a.Level]
		if level == "" {
			level = "notice"
		}
		fmt.Fprintf(log, "::%s file=%s,line=%d,title=%s::%s\n", level, escapeProperty(a.Path), a.StartLine,
			escapeProperty(a.Title), escapeCommand(a.Message))
	}
}

// newFindings counts the report's new findings of every severity.
func newFindings(res *pipeline.Result) int {
	n := 0
	for _, c := range res.Report.Counts(rules.StatusNew) {
		n += c
	}
	return n
}

// readEvent reads the runner's event payload; errors name the file.
func readEvent(env Env) (*forge.Event, error) {
	if env.EventPath == "" {
		return nil, errors.New("GITHUB_EVENT_PATH is not set: run this inside a GitHub Actions job on a pull_request event")
	}
	data, err := os.ReadFile(env.EventPath)
	if err != nil {
		return nil, fmt.Errorf("read the event payload: %w", err)
	}
	ev, err := forge.ParseGitHubPayload(env.EventName, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", env.EventPath, err)
	}
	if !plumbing.IsHash(ev.BaseSHA) || !plumbing.IsHash(ev.HeadSHA) {
		return nil, fmt.Errorf("%s: pull_request.base.sha %q or pull_request.head.sha %q is not a commit sha", env.EventPath, ev.BaseSHA, ev.HeadSHA)
	}
	return ev, nil
}

// reviewPR reviews the PR's head against the merge-base of its base and head, as the PR's
// diff shows the change.
func reviewPR(ctx context.Context, env Env, opts Options, ev *forge.Event) (*pipeline.Result, error) {
	dir := opts.Repo
	if dir == "" {
		dir = env.Workspace
	}
	if dir == "" {
		dir = "."
	}
	repo, err := gitrepo.Open(dir)
	if err != nil {
		return nil, err
	}
	defer repo.Close()
	head := plumbing.NewHash(ev.HeadSHA)
	base, err := repo.MergeBase(plumbing.NewHash(ev.BaseSHA), head)
	if err != nil {
		return nil, fmt.Errorf("%w (the checkout needs the history of both commits: actions/checkout with fetch-depth: 0)", err)
	}
	return pipeline.Commits(ctx, repo, base, head, pipeline.Options{ConfigPath: opts.ConfigPath, Clusters: opts.Clusters, FailOn: opts.FailOn,
		FailOnUnreviewed: opts.FailOnUnreviewed, AllowRemote: opts.AllowRemote, Fork: ev.Fork, Helm: opts.Helm,
		Cache: opts.Cache, ChartCacheDir: opts.ChartCacheDir})
}

// writeReports writes the JSON and SARIF reports that were asked for.
func writeReports(res *pipeline.Result, opts Options) error {
	for _, r := range []struct {
		path  string
		write func(io.Writer) error
	}{
		{opts.JSONPath, func(w io.Writer) error { return format.JSON(w, res.Report) }},
		{opts.SARIFPath, func(w io.Writer) error { return format.SARIF(w, res.Report, opts.Version) }},
	} {
		if r.path == "" {
			continue
		}
		f, err := os.Create(r.path)
		if err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		err = r.write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write report %s: %w", r.path, err)
		}
	}
	return nil
}

// refusedNote heads the step summary when GitHub refused to let the token post.
const refusedNote = "> [!WARNING]\n> tiergate could not post to the pull request: GitHub refused the token (403). " +
	"A pull request from a fork gets a read-only `GITHUB_TOKEN`; otherwise give the job " +
	"`permissions: {pull-requests: write, statuses: write}`. The review follows.\n\n"
