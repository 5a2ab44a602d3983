package forge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsSummaryMatchesOnlyTheBotsMarkerComment(t *testing.T) {
	for _, tc := range []struct {
		name, body, author string
		bot                bool
		me                 string
		want               bool
	}{
		{"mine", summaryMarker + "\nreview", "tiergate[bot]", true, "tiergate[bot]", true},
		{"mine, login case differs", summaryMarker + "\nreview", "TierGate[bot]", true, "tiergate[bot]", true},
		{"a person posts the marker", summaryMarker + "\nfake", "mallory", false, "tiergate[bot]", false},
		{"another bot posts the marker", summaryMarker + "\nfake", "other[bot]", true, "tiergate[bot]", false},
		{"marker not at the start", "hello\n" + summaryMarker, "tiergate[bot]", true, "tiergate[bot]", false},
		{"marker after a space", " " + summaryMarker, "tiergate[bot]", true, "tiergate[bot]", false},
		{"identity unknown, a person posts the marker", summaryMarker + "\nfake", "mallory", false, "", false},
		{"identity unknown, the Actions bot", summaryMarker + "\nreview", "github-actions[bot]", true, "", true},
	} {
		if got := isSummary(tc.body, tc.author, tc.bot, tc.me); got != tc.want {
			t.Errorf("%s: isSummary = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPlanSummary: the newest of the bot's marker comments is edited (not when it holds the
// body already) and the older ones deleted; while the bot's login is unknown the matches
// are any bot account's, so none is deleted.
func TestPlanSummary(t *testing.T) {
	found := []summaryComment{{id: 7, body: "a"}, {id: 12, body: "c"}, {id: 9, body: "b"}}
	for _, tc := range []struct {
		name        string
		found       []summaryComment
		body        string
		deleteOlder bool
		want        summaryPlan
	}{
		{"none", nil, "x", true, summaryPlan{create: true}},
		{"newest edited, older deleted", found, "x", true, summaryPlan{edit: 12, delete: []int64{7, 9}}},
		{"newest holds the body", found, "c", true, summaryPlan{delete: []int64{7, 9}}},
		{"login unknown: nothing deleted", found, "x", false, summaryPlan{edit: 12}},
	} {
		got := planSummary(tc.found, tc.body, tc.deleteOlder)
		if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(summaryPlan{})); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}
