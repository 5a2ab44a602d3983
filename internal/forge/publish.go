package forge

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// summaryMarker opens the summary comment, by which UpsertSummary finds it again.
const summaryMarker = "<!-- tiergate -->"

// statusDescriptionMax is GitHub's limit on a commit status description.
const statusDescriptionMax = 140

// shorten cuts s to at most n characters, ending with "…" when it cut.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// withMarker makes sure that a summary starts with the marker.
func withMarker(body string) string {
	if strings.HasPrefix(body, summaryMarker) {
		return body
	}
	return summaryMarker + "\n" + body
}

// isSummary: the comment opens with the marker and was written by me; when my identity is
// unknown (""), by a bot account, so that a person who posts the marker first (anyone can
// comment on a PR) cannot make the bot edit, or fail to edit, their comment.
func isSummary(body, author string, authorIsBot bool, me string) bool {
	if !strings.HasPrefix(body, summaryMarker) {
		return false
	}
	if me == "" {
		return authorIsBot
	}
	return strings.EqualFold(author, me)
}

// summaryComment is one of the bot's marker comments on a PR.
type summaryComment struct {
	id   int64
	body string
}

// summaryPlan is what UpsertSummary does: create a comment, or edit one (0: none, its body is
// the new one already), then delete the older ones.
type summaryPlan struct {
	create bool
	edit   int64
	delete []int64
}

// planSummary decides how body replaces found, the bot's marker comments on the PR (several
// after a crash between a create and its answer, or two replicas). The newest (highest id:
// both forges number comments in creation order) is kept and edited, unless it holds body
// already (a resumed run of the same head: its head marker, HeadMarker, is in body); the
// older ones are deleted when deleteOlder (the bot's login is known: while it is not, found
// holds any bot account's marker comments, which are not the bot's to delete). Comments by
// anyone else are never in found (isSummary).
func planSummary(found []summaryComment, body string, deleteOlder bool) summaryPlan {
	if len(found) == 0 {
		return summaryPlan{create: true}
	}
	newest := found[0]
	for _, c := range found[1:] {
		if c.id > newest.id {
			newest = c
		}
	}
	var p summaryPlan
	if newest.body != body {
		p.edit = newest.id
	}
	for _, c := range found {
		if deleteOlder && c.id != newest.id {
			p.delete = append(p.delete, c.id)
		}
	}
	return p
}

// summaryAPI is one forge's calls on one PR's comments, for upsertSummary.
type summaryAPI struct {
	forge string // "github", "gitea": what its errors start with
	repo  Repo
	pr    int
	// find lists the bot's marker comments (isSummary: never anyone else's).
	find   func(ctx context.Context) ([]summaryComment, error)
	create func(ctx context.Context, body string) error
	edit   func(ctx context.Context, id int64, body string) error
	// remove deletes a comment, giving the HTTP status of the answer (0 without one).
	remove func(ctx context.Context, id int64) (int, error)
}

// upsertSummary makes body (with the marker, withMarker) the PR's one summary comment as
// planSummary decides over what api.find lists, me being the bot's login ("" unknown: the
// older comments are then not deleted). A create is written once (writeOnce: an
// unanswered one is looked for before it is sent again); a delete answered 404 is no
// error: another replica deleted it first.
func upsertSummary(ctx context.Context, api summaryAPI, body, me string) error {
	body = withMarker(body)
	fail := func(err error) error {
		return fmt.Errorf("%s: summary of %s#%d: %w", api.forge, api.repo.FullName(), api.pr, err)
	}
	found, err := api.find(ctx)
	if err != nil {
		return fail(err)
	}
	plan := planSummary(found, body, me != "")
	switch {
	case plan.create:
		err = writeOnce(ctx, func(ctx context.Context) error { return api.create(ctx, body) }, func(ctx context.Context) (bool, error) {
			found, err := api.find(ctx)
			return hasBody(found, body), err
		})
	case plan.edit != 0:
		err = api.edit(ctx, plan.edit, body)
	}
	if err != nil {
		return fail(err)
	}
	for _, id := range plan.delete {
		if status, err := api.remove(ctx, id); err != nil && status != http.StatusNotFound {
			return fmt.Errorf("%s: delete older summary %d of %s#%d: %w", api.forge, id, api.repo.FullName(), api.pr, err)
		}
	}
	return nil
}

// HeadMarker is the hidden last line of the summary of the review of head sha: two heads'
// summaries never read the same, so a resumed run of sha whose summary is on the PR
// already (UpsertSummary finds its body unchanged) writes nothing.
func HeadMarker(sha string) string { return "<!-- tiergate head " + sha + " -->" }

// reviewBody introduces the line comments of a review of head sha; both forges want a
// body. Its hidden last line is ReviewMarker(sha), by which HasReview tells it.
func reviewBody(n int, sha string) string {
	comments := fmt.Sprintf("%d comments", n)
	if n == 1 {
		comments = "1 comment"
	}
	return reviewBodyPrefix + comments + " on changed lines; the summary comment has the whole review.\n\n" + ReviewMarker(sha)
}

// ReviewMarker is the hidden last line of the body of the bot's review of head sha.
func ReviewMarker(sha string) string { return "<!-- tiergate review of " + sha + " -->" }

// reviewBodyPrefix starts the body of every review this bot posts (HasReview finds them by it).
const reviewBodyPrefix = "tiergate: "

func ptr[T any](v T) *T { return &v }
