package config

import (
	"errors"
	"testing"
)

// TestSyntaxErrorLine: a .tiergate.yaml syntax error names the 1-based line of the
// construct yaml.v3 rejects, for a parser error (an unclosed flow mapping, printed one
// line early by yaml.v3) and a scanner error (printed right).
func TestSyntaxErrorLine(t *testing.T) {
	for name, c := range map[string]struct {
		text string
		line int
		msg  string
	}{
		"parser":  {"failOn: warning\nrules:\n  tier-move: {severity: off\nignore: []\n", 3, "did not find expected ',' or '}'"},
		"scanner": {"failOn: warning\nrules: a: b\n", 2, "mapping values are not allowed in this context"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse(".tiergate.yaml", []byte(c.text))
			var ce *Error
			if !errors.As(err, &ce) || ce.Line != c.line || ce.Message != c.msg {
				t.Errorf("Parse: %v (%+v), want line %d %q", err, ce, c.line, c.msg)
			}
		})
	}
}
