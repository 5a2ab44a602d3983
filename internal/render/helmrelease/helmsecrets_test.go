package helmrelease

import (
	"strconv"
	"testing"
)

// TestPlaceholderValue: a YAML document keeps its shape with every string and number
// replaced (a number by a number of as many digits); booleans keep their value; keys stay
// at the top and where the chart's defaults declare them, and are replaced elsewhere (a
// free-form map keyed by Secret data: hostile case helm, `keys .Values.map`); any other
// value is one placeholder.
func TestPlaceholderValue(t *testing.T) {
	p, n := SecretPlaceholder, func(s string) string { return strconv.FormatInt(SecretNumberPlaceholder(s), 10) }
	defaults := map[string]any{"db": map[string]any{"password": "", "port": 5432, "extra": map[string]any{}}}
	for _, tc := range []struct{ in, want string }{
		{"db:\n  password: hunter22\n  port: 5432\n  tls: true\nusers: [alice]\n",
			"db:\n  password: " + p("hunter22") + "\n  port: " + n("5432") + "\n  " + p("tls") + ": true\nusers:\n- " + p("alice") + "\n"},
		{"db:\n  extra:\n    Kdm3Ry: one\nmap:\n  Kdm3Ry: 48213\n",
			"db:\n  extra:\n    " + p("Kdm3Ry") + ": " + p("one") + "\nmap:\n  " + p("Kdm3Ry") + ": " + n("48213") + "\n"},
		{"plain-token-value", p("plain-token-value")},
		{"12345", p("12345")},
	} {
		if got := string(Placeholders{}.value([]byte(tc.in), defaults)); got != tc.want {
			t.Errorf("value(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if p("a") == p("b") || p("a") != p("a") {
		t.Errorf("placeholders must differ by value and repeat for the same value")
	}
	for _, v := range []string{"48213", "7", "123456789012345678901234"} {
		got := n(v)
		if want := max(2, min(18, len(v))); len(got) != want || got == v || got != n(v) {
			t.Errorf("SecretNumberPlaceholder(%s) = %s: want %d digits, not the value, the same each time", v, got, want)
		}
	}
}
