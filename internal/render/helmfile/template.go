package helmfile

import (
	"regexp"
	"strings"
)

// templated stands in for a template action's output: a value containing it is unknown.
const templated = "TIERGATE-TEMPLATED"

var action = regexp.MustCompile(`(?s)\{\{.*?\}\}`)

// neutralize replaces every template action ({{ … }}, possibly over several lines) with a
// marker and blanks the lines that hold nothing else (if/range/end, includes that emit
// YAML): the rest parses as YAML with each line where it was, so line numbers stay true.
// Nothing is evaluated; both branches of an if stay, which only adds releases whose
// fields the caller then reads as written.
func neutralize(text string) string {
	text = action.ReplaceAllStringFunc(text, func(m string) string {
		return templated + strings.Repeat("\n", strings.Count(m, "\n"))
	})
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.Contains(l, templated) && strings.TrimSpace(strings.ReplaceAll(l, templated, "")) == "" {
			lines[i] = ""
		}
	}
	return strings.Join(lines, "\n")
}

// isTemplated reports whether s holds a template action's output.
func isTemplated(s string) bool { return strings.Contains(s, templated) }
