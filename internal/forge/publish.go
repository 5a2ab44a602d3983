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

// reviewBody introduces the line comments of a review; both forges want a body.
func reviewBody(n int) string {
	if n == 1 {
		return reviewBodyPrefix + "1 comment on changed lines; the summary comment has the whole review."
	}
	return fmt.Sprintf(reviewBodyPrefix+"%d comments on changed lines; the summary comment has the whole review.", n)
}

// reviewBodyPrefix starts the body of every review this bot posts (HasReview finds them by it).
const reviewBodyPrefix = "tiergate: "

func ptr[T any](v T) *T { return &v }
