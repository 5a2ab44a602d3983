package rules

import (
	"regexp"
	"testing"
)

// TestLiteral: a name with invalid UTF-8 (from a hostile file) compiles and still finds itself.
func TestLiteral(t *testing.T) {
	for _, tc := range []struct {
		s, text string
		want    bool
	}{
		{"a.b", "x a.b y", true},
		{"a.b", "x axb y", false},
		{"a\xb3b", "name: a\xb3b", true},
		{"a\xb3b", "name: a b", false},
	} {
		if got := regexp.MustCompile(literal(tc.s)).MatchString(tc.text); got != tc.want {
			t.Errorf("literal(%q) matches %q: %t, want %t", tc.s, tc.text, got, tc.want)
		}
	}
}
