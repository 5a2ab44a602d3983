package forge

import "testing"

// TestIsOwnReview: a review counts when it is on sha, carries the body reviewBody writes
// for sha (prefix and ReviewMarker), and is the bot's: by its login when known (any case),
// else by the forge's bot mark. A person's review that starts with "tiergate: " is not.
func TestIsOwnReview(t *testing.T) {
	const sha, other = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	body := reviewBody(2, sha)
	if want := "tiergate: 2 comments on changed lines; the summary comment has the whole review.\n\n<!-- tiergate review of " + sha + " -->"; body != want {
		t.Fatalf("reviewBody(2) = %q, want %q", body, want)
	}
	for _, tc := range []struct {
		name, body, author, commit, me string
		isBot, want                    bool
	}{
		{"mine", body, "tiergate-bot", sha, "tiergate-bot", false, true},
		{"mine, login in another case", body, "Tiergate-Bot", sha, "tiergate-bot", false, true},
		{"mine, on another commit", body, "tiergate-bot", other, "tiergate-bot", false, false},
		{"mine, of another head", reviewBody(2, other), "tiergate-bot", sha, "tiergate-bot", false, false},
		{"another user's copy", body, "rita", sha, "tiergate-bot", false, false},
		{"login unknown, the Actions app", body, "github-actions[bot]", sha, "", true, true},
		{"login unknown, a person's copy", body, "rita", sha, "", false, false},
		{"login unknown, a bot's lookalike", "tiergate: looks fine", "renovate[bot]", sha, "", true, false},
		{"login unknown, a lookalike without the marker", "tiergate: 2 comments on changed lines; the summary comment has the whole review.", "github-actions[bot]", sha, "", true, false},
		{"the marker without the prefix", "lgtm\n" + ReviewMarker(sha), "github-actions[bot]", sha, "", true, false},
	} {
		if got := isOwnReview(tc.body, tc.author, tc.isBot, tc.commit, tc.me, sha); got != tc.want {
			t.Errorf("%s: isOwnReview = %v, want %v", tc.name, got, tc.want)
		}
	}
}
