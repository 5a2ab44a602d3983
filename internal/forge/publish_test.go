package forge

import "testing"

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
