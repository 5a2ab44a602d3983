package ghaction

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

const (
	verdict     = "### ❌ tiergate: 2 new errors, 1 new notice"
	description = "2 new errors, 1 new notice · 1 cluster"
	statuses    = "POST " + repoPath + "/statuses/{head}"
	pending     = statuses + " pending [tiergate] Reviewing Flux changes…"
	failure     = statuses + " failure [tiergate] " + description
	listed      = "GET " + repoPath + "/issues/2/comments"
	files       = "GET " + repoPath + "/pulls/2/files"
	reviews     = "GET " + repoPath + "/pulls/2/reviews"
	review      = "POST " + repoPath + "/pulls/2/reviews COMMENT on {head}" +
		"; " + demoFile + ":2 RIGHT **missing-depends-on** (error)" +
		"; " + demoFile + ":2 RIGHT **prune-transient** (error)" +
		"; " + demoFile + ":2 RIGHT **tier-move** (notice)"
)

var allOn = Options{Comment: true, Status: true}

// The first run creates the summary comment and posts the line comments; a re-run of the
// workflow on the same head (the same event delivered again) finds both on the PR: the
// summary unchanged is left, the review of this head (its "tiergate: " body and commit id,
// as a resumed server run looks for it) is not posted again. Each run sets pending, then
// failure, and writes the same Markdown to the step summary.
func TestPullRequestOpenedThenRerun(t *testing.T) {
	h := newHarness(t)
	human := h.gh.AddComment(prNumber, "octocat", "looks fine to me")
	res, err := h.run("pull_request.opened.json", false, allOn)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Result{Failed: true, Published: true}, res); diff != "" {
		t.Fatalf("result (-want +got):\n%s", diff)
	}
	md := h.markdown()
	if !strings.HasPrefix(md, "<!-- tiergate -->\n"+verdict+"\n") {
		t.Fatalf("summary starts %q", md[:min(len(md), 80)])
	}
	want := []string{
		pending, // its creator, github-actions[bot], is the account: no GET /user
		listed,
		"POST " + repoPath + "/issues/2/comments <!-- tiergate --> " + verdict,
		files,
		reviews,
		review,
		failure,
	}
	if diff := cmp.Diff(want, h.calls()); diff != "" {
		t.Fatalf("GitHub calls (-want +got):\n%s", diff)
	}
	if got := h.read(h.env.StepSummary); got != md {
		t.Fatalf("step summary (-want +got):\n%s", cmp.Diff(md, got))
	}
	outputs := "result=failure\nnew-findings=3\ndescription=" + description + "\npublished=true\n"
	if diff := cmp.Diff(outputs, h.read(h.env.Output)); diff != "" {
		t.Fatalf("GITHUB_OUTPUT (-want +got):\n%s", diff)
	}

	for _, event := range []string{"pull_request.opened.json", "pull_request.synchronize.json"} {
		h.gh.ResetCalls()
		if _, err := h.run(event, false, allOn); err != nil {
			t.Fatal(err)
		}
		// The summary of the same head is unchanged: it is not edited; the review is there.
		want := []string{pending, listed, files, reviews, failure}
		if diff := cmp.Diff(want, h.calls()); diff != "" {
			t.Fatalf("GitHub calls of the re-run on %s (-want +got):\n%s", event, diff)
		}
	}
	comments := h.gh.Comments(prNumber)
	wantComments := []forgetest.Comment{
		{ID: human, Author: "octocat", Body: "looks fine to me"},
		{ID: human + 1, Author: forgetest.ActionsLogin, Body: md + "\n\n" + forge.HeadMarker(h.repo.head)},
	}
	if diff := cmp.Diff(wantComments, comments); diff != "" {
		t.Fatalf("PR comments after three runs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{h.repo.head}, h.gh.ReviewCommits(prNumber)); diff != "" {
		t.Fatalf("reviews after three runs (-want +got):\n%s", diff)
	}
	// Each step appends to its own files; here the runs share them.
	if got := h.read(h.env.StepSummary); got != md+md+md {
		t.Fatalf("step summary after three runs:\n%s", got)
	}
	if got := h.read(h.env.Output); got != outputs+outputs+outputs {
		t.Fatalf("GITHUB_OUTPUT after three runs:\n%s", got)
	}
}

// The bot's review of an earlier head is no reason to skip this head's: the line comments
// are posted, and the summary of the earlier head is edited, never a second one posted.
func TestEarlierHeadsReviewDoesNotSkip(t *testing.T) {
	h := newHarness(t)
	earlier := strings.Repeat("e", 40)
	old := h.gh.AddComment(prNumber, forgetest.ActionsLogin, "<!-- tiergate -->\n### ✅ tiergate: no new findings\n\n"+forge.HeadMarker(earlier))
	gh, err := forge.NewGitHub(forge.GitHubOptions{APIURL: h.gh.URL, Token: forgetest.Token})
	if err != nil {
		t.Fatal(err)
	}
	c, err := gh.For(0)
	if err != nil {
		t.Fatal(err)
	}
	repo := forge.Repo{Owner: "Codertocat", Name: "Hello-World"}
	if err := c.PostReview(context.Background(), repo, prNumber, earlier, []forge.LineComment{{Path: demoFile, Line: 2, Body: "old"}}); err != nil {
		t.Fatal(err)
	}
	h.gh.ResetCalls()
	if _, err := h.run("pull_request.synchronize.json", false, allOn); err != nil {
		t.Fatal(err)
	}
	want := []string{
		pending,
		listed,
		"PATCH " + repoPath + "/issues/comments/" + strconv.FormatInt(old, 10) + " <!-- tiergate --> " + verdict,
		files,
		reviews,
		review,
		failure,
	}
	if diff := cmp.Diff(want, h.calls()); diff != "" {
		t.Fatalf("GitHub calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{earlier, h.repo.head}, h.gh.ReviewCommits(prNumber)); diff != "" {
		t.Fatalf("reviews (-want +got):\n%s", diff)
	}
	if n := len(h.gh.Comments(prNumber)); n != 1 {
		t.Fatalf("%d PR comments, want the one summary", n)
	}
}

// A pull request from a fork gets a read-only token: the first request is refused, nothing
// more is asked, the review goes to the step summary and the step still fails.
func TestForkPullRequestReadOnlyToken(t *testing.T) {
	h := newHarness(t)
	h.gh.FailNext(repoPath+"/statuses/"+h.repo.head, 403, nil)
	res, err := h.run("pull_request.opened.json", true, allOn)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Result{Failed: true, Published: false}, res); diff != "" {
		t.Fatalf("result (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{pending}, h.calls()); diff != "" {
		t.Fatalf("GitHub calls (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(refusedNote+h.markdown(), h.read(h.env.StepSummary)); diff != "" {
		t.Fatalf("step summary (-want +got):\n%s", diff)
	}
	outputs := "result=failure\nnew-findings=3\ndescription=" + description + "\npublished=false\n"
	if diff := cmp.Diff(outputs, h.read(h.env.Output)); diff != "" {
		t.Fatalf("GITHUB_OUTPUT (-want +got):\n%s", diff)
	}
	// The job log: the refusal, the verdict, and the findings on their lines.
	lines := strings.Split(strings.TrimSuffix(h.log.String(), "\n"), "\n")
	refused := "::warning title=tiergate::could not post to the pull request, the review is in the step summary: github: set status of Codertocat/Hello-World@" + h.repo.head + ": POST "
	if len(lines) != 5 || !strings.HasPrefix(lines[0], refused) {
		t.Fatalf("job log:\n%s", h.log.String())
	}
	for i, l := range lines[2:] {
		cmd, _, _ := strings.Cut(strings.TrimPrefix(l, "::"), "::") // the message is the rules package's
		lines[2+i] = "::" + cmd
	}
	want := []string{
		"tiergate: " + description,
		"::error file=databases/web-data.yaml,line=2,title=missing-depends-on",
		"::error file=databases/web-data.yaml,line=2,title=prune-transient",
		"::notice file=databases/web-data.yaml,line=2,title=tier-move",
	}
	if diff := cmp.Diff(want, lines[1:]); diff != "" {
		t.Fatalf("job log (-want +got):\n%s", diff)
	}
}

// A job that may set statuses but not comment still ends its pending status.
func TestCommentRefusedStatusAllowed(t *testing.T) {
	h := newHarness(t)
	h.gh.FailNext(repoPath+"/issues/2/comments", 403, nil) // the list: read is refused too
	res, err := h.run("pull_request.opened.json", false, allOn)
	if err != nil {
		t.Fatal(err)
	}
	if res.Published {
		t.Fatal("published despite the refusal")
	}
	if diff := cmp.Diff([]string{pending, listed, failure}, h.calls()); diff != "" {
		t.Fatalf("GitHub calls (-want +got):\n%s", diff)
	}
	if got := h.read(h.env.StepSummary); !strings.HasPrefix(got, refusedNote+"<!-- tiergate -->\n"+verdict+"\n") {
		t.Fatalf("step summary starts %q", got[:min(len(got), 300)])
	}
}

func TestCommentOffStatusOnly(t *testing.T) {
	h := newHarness(t)
	o := allOn
	o.Comment = false
	o.FailOn = "never"
	res, err := h.run("pull_request.reopened.json", false, o)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Result{Failed: false, Published: true}, res); diff != "" {
		t.Fatalf("result (-want +got):\n%s", diff)
	}
	want := []string{pending, statuses + " success [tiergate] " + description}
	if diff := cmp.Diff(want, h.calls()); diff != "" {
		t.Fatalf("GitHub calls (-want +got):\n%s", diff)
	}
	outputs := "result=success\nnew-findings=3\ndescription=" + description + "\npublished=true\n"
	if diff := cmp.Diff(outputs, h.read(h.env.Output)); diff != "" {
		t.Fatalf("GITHUB_OUTPUT (-want +got):\n%s", diff)
	}
}

// Without a token nothing is requested; the reports are written and the base is the fork
// point of the PR branch, not main's tip.
func TestNoTokenReports(t *testing.T) {
	h := newHarness(t)
	dir := t.TempDir()
	h.env.EventPath = eventFile(t, "pull_request.opened.json", h.repo.tip, h.repo.head, false)
	res, err := Run(context.Background(), h.env, Options{Comment: true, Status: true,
		JSONPath: dir + "/report.json", SARIFPath: dir + "/report.sarif", Version: "v9.9.9"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&Result{Failed: true, Published: false}, res); diff != "" {
		t.Fatalf("result (-want +got):\n%s", diff)
	}
	if calls := h.gh.Calls(); len(calls) != 0 {
		t.Fatalf("requests without a token: %v", calls)
	}
	var rep struct{ Base, Head string }
	if err := json.Unmarshal([]byte(h.read(dir+"/report.json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Base != h.repo.forkPoint || rep.Head != h.repo.head {
		t.Fatalf("report base %s head %s, want %s %s", rep.Base, rep.Head, h.repo.forkPoint, h.repo.head)
	}
	var sarif struct {
		Runs []struct {
			Tool struct{ Driver struct{ Version string } }
		}
	}
	if err := json.Unmarshal([]byte(h.read(dir+"/report.sarif")), &sarif); err != nil || sarif.Runs[0].Tool.Driver.Version != "v9.9.9" {
		t.Fatalf("SARIF: %v %+v", err, sarif)
	}
	if got := h.read(h.env.StepSummary); got != h.markdown() {
		t.Fatalf("step summary differs from the comment Markdown")
	}
}

func TestErrors(t *testing.T) {
	h := newHarness(t)
	const zero = "0000000000000000000000000000000000000000"
	cases := []struct {
		name, event, base, head string
		calls                   []string
		err                     string
	}{
		{"push event", "push", "", "", nil,
			"{event}: GitHub push event: not a pull request event (want pull_request or pull_request_target)"},
		{"base not fetched", "pull_request", zero, h.repo.head,
			// GitHub takes 140 characters of description.
			[]string{pending, statuses + " error [tiergate] merge base of " + zero + " and {head}: commit " + zero[:31] + "…"},
			"merge base of " + zero + " and {head}: commit " + zero + ": object not found (the checkout needs the history of both commits: actions/checkout with fetch-depth: 0)"},
		{"not a sha", "pull_request", "main", h.repo.head, nil,
			`{event}: pull_request.base.sha "main" or pull_request.head.sha "{head}" is not a commit sha`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h.gh.ResetCalls()
			env := h.env
			env.EventName = tc.event
			env.EventPath = eventFile(t, "pull_request.opened.json", tc.base, tc.head, false)
			_, err := Run(context.Background(), env, Options{Token: forgetest.Token, Comment: true, Status: true})
			got := ""
			if err != nil {
				got = strings.ReplaceAll(strings.ReplaceAll(err.Error(), env.EventPath, "{event}"), h.repo.head, "{head}")
			}
			if got != tc.err {
				t.Fatalf("error\n got %s\nwant %s", got, tc.err)
			}
			if diff := cmp.Diff(tc.calls, h.calls()); diff != "" {
				t.Fatalf("GitHub calls (-want +got):\n%s", diff)
			}
		})
	}
	if got := h.read(h.env.StepSummary) + h.read(h.env.Output); got != "" {
		t.Fatalf("a review that did not run wrote %q", got)
	}
}

func TestWorkflowCommandEscaping(t *testing.T) {
	in := "a%b\r\nc:d,e"
	if got, want := escapeCommand(in), "a%25b%0D%0Ac:d,e"; got != want {
		t.Errorf("escapeCommand = %q, want %q", got, want)
	}
	if got, want := escapeProperty(in), "a%25b%0D%0Ac%3Ad%2Ce"; got != want {
		t.Errorf("escapeProperty = %q, want %q", got, want)
	}
}

// A refusal that is not about permission fails the step with exit status 2, ends the
// pending status with error, and still leaves the review in the step summary.
func TestPublishError(t *testing.T) {
	h := newHarness(t)
	h.gh.PassNext(repoPath + "/pulls/2/reviews") // the read of the reviews posted
	h.gh.FailNext(repoPath+"/pulls/2/reviews", 422, nil)
	res, err := h.run("pull_request.opened.json", false, allOn)
	if err == nil || !strings.HasPrefix(err.Error(), "post line comments: github: review of Codertocat/Hello-World#2: POST ") ||
		!strings.HasSuffix(err.Error(), ": 422 injected fault []") {
		t.Fatalf("error %v", err)
	}
	if diff := cmp.Diff(&Result{Failed: true, Published: false}, res); diff != "" {
		t.Fatalf("result (-want +got):\n%s", diff)
	}
	calls := h.calls()
	want := []string{pending, listed, "POST " + repoPath + "/issues/2/comments <!-- tiergate --> " + verdict,
		files, reviews, review}
	if len(calls) != len(want)+1 || !cmp.Equal(want, calls[:len(want)]) ||
		!strings.HasPrefix(calls[len(want)], statuses+" error [tiergate] post line comments: github: review of Codertocat/Hello-World#2: POST ") {
		t.Fatalf("GitHub calls:\n%s", strings.Join(calls, "\n"))
	}
	if got := h.read(h.env.StepSummary); got != h.markdown() {
		t.Fatal("step summary differs from the comment Markdown")
	}
	outputs := "result=failure\nnew-findings=3\ndescription=" + description + "\npublished=false\n"
	if diff := cmp.Diff(outputs, h.read(h.env.Output)); diff != "" {
		t.Fatalf("GITHUB_OUTPUT (-want +got):\n%s", diff)
	}
}

// With the status off the account is never learned (the workflow token may not read GET
// /user): a re-run still finds its summary, by the marker on a Bot's comment, and its
// review of the head, and posts neither again.
func TestRerunCommentOnlyUnknownAccount(t *testing.T) {
	h := newHarness(t)
	o := allOn
	o.Status = false
	for run := range 2 {
		h.gh.ResetCalls()
		if _, err := h.run("pull_request.opened.json", false, o); err != nil {
			t.Fatal(err)
		}
		want := []string{"GET /user", listed, "POST " + repoPath + "/issues/2/comments <!-- tiergate --> " + verdict, files, reviews, review}
		if run == 1 {
			want = []string{"GET /user", listed, files, reviews} // each run is a new process
		}
		if diff := cmp.Diff(want, h.calls()); diff != "" {
			t.Fatalf("run %d: GitHub calls (-want +got):\n%s", run+1, diff)
		}
	}
	if n := len(h.gh.Comments(prNumber)); n != 1 {
		t.Errorf("%d PR comments, want the one summary", n)
	}
	if diff := cmp.Diff([]string{h.repo.head}, h.gh.ReviewCommits(prNumber)); diff != "" {
		t.Errorf("reviews (-want +got):\n%s", diff)
	}
}
