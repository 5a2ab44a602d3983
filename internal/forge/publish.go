package forge

import (
	"fmt"
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
