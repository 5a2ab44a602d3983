package helmrelease

import "testing"

// TestPlaceholderValue: a YAML document keeps its shape with every string replaced;
// numbers and booleans keep their type; any other value is one placeholder.
func TestPlaceholderValue(t *testing.T) {
	p := SecretPlaceholder
	for _, tc := range []struct{ in, want string }{
		{"db:\n  password: hunter22\n  port: 5432\n  tls: true\nusers: [alice]\n",
			"db:\n  password: " + p("hunter22") + "\n  port: 5432\n  tls: true\nusers:\n- " + p("alice") + "\n"},
		{"plain-token-value", p("plain-token-value")},
		{"12345", p("12345")},
	} {
		if got := string(placeholderValue([]byte(tc.in))); got != tc.want {
			t.Errorf("placeholderValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if p("a") == p("b") || p("a") != p("a") {
		t.Errorf("placeholders must differ by value and repeat for the same value")
	}
}
