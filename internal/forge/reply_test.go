package forge

import "testing"

// TestIsOwnReply: a reply counts when it holds the marker and is the bot's: by its login
// when known (any case), else by the forge's bot mark.
func TestIsOwnReply(t *testing.T) {
	m := ReplyMarker(7)
	if m != "<!-- tiergate reply to comment 7 -->" {
		t.Fatalf("ReplyMarker(7) = %q", m)
	}
	for _, tc := range []struct {
		name, body, author, me string
		isBot, want            bool
	}{
		{"mine", "@rita no\n\n" + m, "tiergate-bot", "tiergate-bot", false, true},
		{"mine, login in another case", "x " + m, "Tiergate-Bot", "tiergate-bot", false, true},
		{"another user's copy", "x " + m, "rita", "tiergate-bot", false, false},
		{"another comment's marker", "x " + ReplyMarker(71), "tiergate-bot", "tiergate-bot", false, false},
		{"login unknown, a bot", "x " + m, "app[bot]", "", true, true},
		{"login unknown, a person", "x " + m, "rita", "", false, false},
	} {
		if got := isOwnReply(tc.body, tc.author, tc.isBot, tc.me, m); got != tc.want {
			t.Errorf("%s: isOwnReply = %v, want %v", tc.name, got, tc.want)
		}
	}
}
