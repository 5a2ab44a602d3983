// Package yamlerr reads the line of a gopkg.in/yaml.v3 syntax error.
package yamlerr

import (
	"bytes"
	"regexp"
	"strconv"
)

// parserProblems are the problems yaml.v3's parser (parserc.go, yaml_parser_set_parser_error
// and yaml_parser_set_parser_error_context) reports; every other syntax problem is the
// scanner's (scannerc.go).
var parserProblems = map[string]bool{
	"did not find expected ',' or ']'": true, "did not find expected ',' or '}'": true,
	"did not find expected '-' indicator": true, "did not find expected <document start>": true,
	"did not find expected <stream-start>": true, "did not find expected key": true,
	"did not find expected node content": true, "found duplicate %TAG directive": true,
	"found duplicate %YAML directive": true, "found incompatible YAML document": true,
	"found undefined tag handle": true,
}

var lineOf = regexp.MustCompile(`^line (\d+): (.+)$`)

// Line returns the 1-based line of a yaml.v3 error text "line N: problem" (the "yaml: "
// prefix removed) and the problem; false for another text. yaml.v3 prints a mark's
// 0-based line, adding one for scanner errors only (decode.go, parser.fail: "Scanner
// errors don't iterate line before returning error"), so a parser error's N is one line
// early: its 1-based line is N+1.
func Line(text string) (int, string, bool) {
	m := lineOf.FindStringSubmatch(text)
	if m == nil {
		return 0, "", false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, "", false
	}
	if parserProblems[m[2]] {
		n++
	}
	return n, m[2], true
}

// LastLine is the 1-based number of data's last line (1 for empty data): yaml.v3 places an
// error at the end of the stream (an unclosed "[") on the line after a final newline, which
// the file does not have, so callers clamp Line's result to it.
func LastLine(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return max(n, 1)
}
