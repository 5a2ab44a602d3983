// Package publish posts a finished review to its pull request through a forge.Client: the
// summary comment, line comments on the lines the PR changes, a check run where the client
// can publish one, and the final commit status. The webhook server and the GitHub Action
// publish through it, so a PR reads the same whichever of them reviewed it.
package publish

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/review"
	"github.com/tiergate/tiergate/internal/review/format"
	"github.com/tiergate/tiergate/internal/review/rules"
)

const (
	// maxLineComments caps one review's line comments; the summary lists every finding.
	maxLineComments = 50
	// maxCheckSummary keeps a check run's summary under the Checks API's 65,535 characters.
	maxCheckSummary = 4000
	// maxComment is GitHub's limit on a comment, in characters (format.Markdown's default).
	maxComment = 65536
	// maxDescription is GitHub's limit on a commit status description, in characters.
	maxDescription = 140
)

// Target is where a review is published: a PR and the head commit that was reviewed.
type Target struct {
	Repo forge.Repo
	PR   int
	Head string // commit sha
}

// Ledger remembers which sets of line comments were posted on a PR, so that a re-run on
// the same head posts none. A fingerprint covers the head and every comment.
type Ledger interface {
	Posted(fingerprint string) (bool, error)
	MarkPosted(fingerprint string) error
}

// Options chooses what is published.
type Options struct {
	// Ledger keeps line comments from being posted twice; nil posts them on every run.
	Ledger Ledger
	// NoComments skips the summary comment and the line comments.
	NoComments bool
	// NoStatus skips the check run and the final commit status.
	NoStatus bool
	// Resumed: an interrupted run may have posted this head's line comments or check run
	// already, so the forge is asked first (forge.PublishedFinder, forge.CheckRunFinder).
	Resumed bool
	// BeforeFinal, when set, is called just before the final status is set (the caller
	// records the head as final); an error stops the review there.
	BeforeFinal func() error
	// FinalContext, when set, gives the context the final status is set in once BeforeFinal
	// has passed (the caller detaches it from the run's cancellation, with a bound of its
	// own, so that a run cancelled then still publishes its word); cancel is called after.
	FinalContext func(ctx context.Context) (fctx context.Context, cancel context.CancelFunc)
	// WriteContext, when set, gives the context of each write to the PR (the summary
	// comment, the line comments, the check run): the caller detaches it from the run's
	// cancellation, with a bounded grace, so that a write once started completes before the run ends
	// and a newer run of the PR, which starts after, reads what it made. A write is not
	// started once ctx has ended.
	WriteContext func(ctx context.Context) (wctx context.Context, cancel context.CancelFunc)
}

// write runs fn in the context opts.WriteContext gives (ctx without it), unless ctx has
// ended already.
func (opts Options) write(ctx context.Context, fn func(ctx context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if opts.WriteContext == nil {
		return fn(ctx)
	}
	wctx, cancel := opts.WriteContext(ctx)
	defer cancel()
	return fn(wctx)
}

// Review publishes res to t in this order: summary comment (format.Markdown of the report,
// then forge.HeadMarker of the head), line comments, check run (when c is a
// forge.CheckRunner), final status. The status comes last so that branch protection flips only once the comment is there. It returns the final
// state, StateSuccess or StateFailure (new findings at or above res.Threshold), and the
// first forge error, wrapped with the step that failed.
func Review(ctx context.Context, c forge.Client, t Target, res *pipeline.Result, opts Options) (forge.State, error) {
	state := forge.StateSuccess
	if res.Failed() {
		state = forge.StateFailure
	}
	// The head marker goes last, under the comment's limit.
	headMarker := "\n\n" + forge.HeadMarker(t.Head)
	md := format.Markdown(res.Report, format.MarkdownOptions{MaxChars: maxComment - len(headMarker)})
	if !opts.NoComments {
		err := opts.write(ctx, func(ctx context.Context) error { return c.UpsertSummary(ctx, t.Repo, t.PR, md+headMarker) })
		if err != nil {
			return state, fmt.Errorf("publish summary comment: %w", err)
		}
		changed, err := c.ChangedLines(ctx, t.Repo, t.PR)
		if err != nil {
			return state, fmt.Errorf("read changed lines: %w", err)
		}
		if err := postReview(ctx, c, t, LineComments(res.Report, changed), opts); err != nil {
			return state, err
		}
	}
	if opts.NoStatus {
		return state, nil
	}
	desc := Describe(res.Report)
	if cr, ok := c.(forge.CheckRunner); ok && !hasCheckRun(ctx, c, t, opts) {
		err := opts.write(ctx, func(ctx context.Context) error {
			return cr.CheckRun(ctx, t.Repo, t.Head, string(state), desc, CheckSummary(md), Annotations(res.Report))
		})
		if err != nil {
			return state, fmt.Errorf("publish check run: %w", err)
		}
	}
	if opts.BeforeFinal != nil {
		if err := opts.BeforeFinal(); err != nil {
			return state, err
		}
	}
	if opts.FinalContext != nil {
		var cancel context.CancelFunc
		ctx, cancel = opts.FinalContext(ctx)
		defer cancel()
	}
	if err := c.SetStatus(ctx, t.Repo, t.Head, state, desc); err != nil {
		return state, fmt.Errorf("set status %s: %w", state, err)
	}
	return state, nil
}

// hasCheckRun reports whether a resumed run finds its check run on the head already. A
// failure to read is no reason to fail the review: the run is then created again.
func hasCheckRun(ctx context.Context, c forge.Client, t Target, opts Options) bool {
	f, ok := c.(forge.CheckRunFinder)
	if !ok || !opts.Resumed {
		return false
	}
	found, err := f.HasCheckRun(ctx, t.Repo, t.Head)
	return err == nil && found
}

// postReview posts the line comments as one review, unless the ledger has them already or,
// for a resumed run, the forge holds this bot's review of the head.
func postReview(ctx context.Context, c forge.Client, t Target, comments []forge.LineComment, opts Options) error {
	if len(comments) == 0 {
		return nil
	}
	data, _ := json.Marshal(comments)
	sum := sha256.Sum256(append([]byte(t.Head+"\x00"), data...))
	fp := hex.EncodeToString(sum[:])
	ledger := opts.Ledger
	if ledger != nil {
		if done, err := ledger.Posted(fp); err != nil || done {
			return err
		}
	}
	if f, ok := c.(forge.PublishedFinder); ok && opts.Resumed {
		found, err := f.HasReview(ctx, t.Repo, t.PR, t.Head)
		if err != nil {
			return fmt.Errorf("read line comments posted: %w", err)
		}
		if found {
			return markPosted(ledger, fp)
		}
	}
	err := opts.write(ctx, func(ctx context.Context) error { return c.PostReview(ctx, t.Repo, t.PR, t.Head, comments) })
	if err != nil {
		return fmt.Errorf("post line comments: %w", err)
	}
	return markPosted(ledger, fp)
}

func markPosted(ledger Ledger, fp string) error {
	if ledger == nil {
		return nil
	}
	return ledger.MarkPosted(fp)
}

// LineComments are the new findings on lines the PR changed (changed: path → head-side
// line numbers), one per cause (a cause several clusters share names them), distinct text
// and line, at most maxLineComments.
func LineComments(rep *review.Report, changed map[string]map[int]bool) []forge.LineComment {
	var out []forge.LineComment
	seen := map[forge.LineComment]bool{}
	for _, f := range rep.Findings {
		if f.Status != rules.StatusNew || f.File == "" || !changed[f.File][f.Line] || !review.FirstOfCause(f) {
			continue
		}
		where := f.Severity.String()
		if len(f.Clusters) > 1 {
			where += ", clusters " + strings.Join(f.Clusters, ", ")
		}
		body := fmt.Sprintf("**%s** (%s): %s", f.Rule, where, f.Message)
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

// Annotations are the new findings with a file and line, as check run annotations.
func Annotations(rep *review.Report) []forge.Annotation {
	var out []forge.Annotation
	seen := map[forge.Annotation]bool{}
	for _, f := range rep.Findings {
		if f.Status != rules.StatusNew || f.File == "" || f.Line <= 0 {
			continue
		}
		msg := f.Message
		if f.Suggestion != "" {
			msg += "\n" + f.Suggestion
		}
		a := forge.Annotation{Path: f.File, StartLine: f.Line, EndLine: f.Line, Level: annotationLevel(f.Severity),
			Title: f.Rule, Message: msg}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}

// annotationLevel is the Checks API's level of a finding's severity.
func annotationLevel(s rules.Severity) string {
	switch s {
	case rules.Error:
		return "failure"
	case rules.Warning:
		return "warning"
	}
	return "notice"
}

// CheckSummary is a check run's summary: the summary comment's verdict (its lines before
// the first section), without the marker, at most maxCheckSummary bytes.
func CheckSummary(md string) string {
	s := strings.TrimPrefix(md, format.Marker+"\n")
	if i := strings.Index(s, "\n#### "); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if len(s) > maxCheckSummary {
		s = strings.ToValidUTF8(s[:maxCheckSummary], "")
	}
	return s
}

// Describe is the final status description: what was not reviewed, new findings by
// severity and the clusters, e.g. "3 of 79 Kustomizations not reviewed · 2 new errors,
// 1 new warning · 3 clusters"; at most maxDescription bytes, the clusters dropped first.
func Describe(rep *review.Report) string {
	n := len(rep.Clusters)
	clusters := "1 cluster"
	if n != 1 {
		clusters = fmt.Sprintf("%d clusters", n)
	}
	s := format.NewCounts(rep)
	if nr := format.NotReviewed(rep); nr != "" {
		s = nr + " · " + s
	}
	if len(s)+len(" · "+clusters) <= maxDescription {
		return s + " · " + clusters
	}
	if len(s) > maxDescription {
		s = strings.ToValidUTF8(s[:maxDescription], "")
	}
	return s
}
