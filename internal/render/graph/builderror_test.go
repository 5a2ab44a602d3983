package graph

import "testing"

// TestBuildErrorLocationOnce: Error names the location once, also when the message
// starts with it; a message naming another place keeps the prefix.
func TestBuildErrorLocationOnce(t *testing.T) {
	for _, c := range []struct{ msg, want string }{
		{"a/ingress.yaml:10 is not valid YAML: x", "a/ingress.yaml:10 is not valid YAML: x"},
		{"a/ingress.yaml:1 is not valid YAML: x", "a/ingress.yaml:10: a/ingress.yaml:1 is not valid YAML: x"},
		{"build failed", "a/ingress.yaml:10: build failed"},
	} {
		if got := (&BuildError{File: "a/ingress.yaml", Line: 10, Message: c.msg}).Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}
