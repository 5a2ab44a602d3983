package yamlerr

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestLine: the 1-based line of the offending construct, for parser and scanner errors
// of yaml.v3 (each text parsed by yaml.v3 itself).
func TestLine(t *testing.T) {
	for name, c := range map[string]struct {
		text    string
		line    int
		problem string
	}{
		"parser, flow sequence":   {"a: 1\nb: 2\nc: [x.${V}]\nd: 4\n", 3, "did not find expected ',' or ']'"},
		"parser, flow mapping":    {"a: 1\nb: 2\nc: {severity: off\nd: []\n", 3, "did not find expected ',' or '}'"},
		"parser, node content":    {"a: 1\nb: [1,\n", 3, "did not find expected node content"},
		"parser, expected key":    {"a:\n  b: 1\n  c: 2\n d: 3\n  e: 4\n", 4, "did not find expected key"},
		"scanner, mapping values": {"a: 1\nb: 2\nc: d: e\nf: 4\n", 3, "mapping values are not allowed in this context"},
		"scanner, expected ':'":   {"a: 1\nb\nc: 2\n", 2, "could not find expected ':'"},
	} {
		t.Run(name, func(t *testing.T) {
			var n yaml.Node
			err := yaml.Unmarshal([]byte(c.text), &n)
			if err == nil {
				t.Fatal("parses")
			}
			line, problem, ok := Line(strings.TrimPrefix(err.Error(), "yaml: "))
			if !ok || line != c.line || problem != c.problem {
				t.Errorf("Line(%q) = %d, %q, %v; want %d, %q", err, line, problem, ok, c.line, c.problem)
			}
		})
	}
	if _, _, ok := Line("unknown anchor 'x' referenced"); ok {
		t.Error("a text without a line has one")
	}
}
