package forge

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v66/github"
)

// CheckRunner is implemented by clients that can publish a check run (GitHub App auth
// only: the Checks API refuses other tokens).
type CheckRunner interface {
	// CheckRun publishes a completed check run named StatusContext on sha.
	CheckRun(ctx context.Context, repo Repo, sha string, conclusion string, title, summary string, annotations []Annotation) error
}

// CheckRunFinder is implemented by clients that can read back the check runs this bot
// created, so that a run resumed after a crash does not create a second one.
type CheckRunFinder interface {
	// HasCheckRun reports whether sha has a check run named StatusContext by this App.
	HasCheckRun(ctx context.Context, repo Repo, sha string) (bool, error)
}

// Annotation marks lines of a file in a check run.
type Annotation struct {
	Path               string
	StartLine, EndLine int
	Level              string // "failure", "warning" or "notice"
	Message, Title     string
}

// annotationBatch is the most annotations the Checks API takes per request.
const annotationBatch = 50

// checkSummaryMax is the Checks API's limit on an output summary.
const checkSummaryMax = 65535

// githubAppClient is the Client of an App installation.
type githubAppClient struct{ githubClient }

// CheckRun creates the run, then adds the annotations in batches of annotationBatch.
func (c *githubAppClient) CheckRun(ctx context.Context, repo Repo, sha, conclusion, title, summary string, annotations []Annotation) error {
	summary = shorten(summary, checkSummaryMax)
	run, _, err := c.gh.Checks.CreateCheckRun(ctx, repo.Owner, repo.Name, github.CreateCheckRunOptions{
		Name: StatusContext, HeadSHA: sha, Status: ptr("completed"), Conclusion: ptr(conclusion),
		Output: checkOutput(title, summary, nil),
	})
	if err != nil {
		return fmt.Errorf("github: check run on %s@%s: %w", repo.FullName(), sha, err)
	}
	for len(annotations) > 0 {
		n := min(annotationBatch, len(annotations))
		_, _, err := c.gh.Checks.UpdateCheckRun(ctx, repo.Owner, repo.Name, run.GetID(), github.UpdateCheckRunOptions{
			Name: StatusContext, Output: checkOutput(title, summary, annotations[:n]),
		})
		if err != nil {
			return fmt.Errorf("github: annotate check run %d on %s@%s: %w", run.GetID(), repo.FullName(), sha, err)
		}
		annotations = annotations[n:]
	}
	return nil
}

func checkOutput(title, summary string, annotations []Annotation) *github.CheckRunOutput {
	out := &github.CheckRunOutput{Title: ptr(title), Summary: ptr(summary)}
	for _, a := range annotations {
		ga := &github.CheckRunAnnotation{
			Path: ptr(a.Path), StartLine: ptr(a.StartLine), EndLine: ptr(a.EndLine),
			AnnotationLevel: ptr(a.Level), Message: ptr(a.Message),
		}
		if a.Title != "" {
			ga.Title = ptr(a.Title)
		}
		out.Annotations = append(out.Annotations, ga)
	}
	return out
}

func (c *githubAppClient) HasCheckRun(ctx context.Context, repo Repo, sha string) (bool, error) {
	me, err := c.clients.identity(ctx, c.gh)
	if err != nil {
		return false, fmt.Errorf("github: check runs of %s@%s: %w", repo.FullName(), sha, err)
	}
	slug := strings.TrimSuffix(me, "[bot]")
	opts := &github.ListCheckRunsOptions{CheckName: ptr(StatusContext), ListOptions: github.ListOptions{PerPage: 100}}
	for {
		runs, resp, err := c.gh.Checks.ListCheckRunsForRef(ctx, repo.Owner, repo.Name, sha, opts)
		if err != nil {
			return false, fmt.Errorf("github: check runs of %s@%s: %w", repo.FullName(), sha, err)
		}
		for _, r := range runs.CheckRuns {
			if r.GetName() == StatusContext && r.GetHeadSHA() == sha && (slug == "" || r.GetApp().GetSlug() == slug) {
				return true, nil
			}
		}
		if resp.NextPage == 0 {
			return false, nil
		}
		opts.Page = resp.NextPage
	}
}
