package rules

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"text/template/parse"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// parseError is Helm's report of a template that does not parse (pkg/engine engine.go
// render, cleanupParseError): "parse error at (<chart>/templates/x.yaml:<line>[:<col>]): <the
// last part of text/template's error>". The template name starts with the chart's name.
var parseError = regexp.MustCompile(`parse error at \(([^():]+):(\d+)(?::\d+)?\): (.*)`)

// located is a helm-render-error placed where its cause is written rather than on the
// HelmRelease: a whole finding's location, message, suggestion and the message it replaces.
type located struct {
	file                string
	line                int
	message, suggestion string
	details             string
}

// locateRenderError places a helm-render-error whose cause the repository holds, false
// when it is none of those: an in-repo chart folder that does not exist (at the field
// that names it), or a template that does not parse (at the template's line Helm names,
// when the template is a file of the repository).
func locateRenderError(c *graph.Cluster, hr *graph.Object, e graph.ReleaseError, name string) (located, bool) {
	if e.ChartMissing {
		l := e.Err.Line
		if hr != nil {
			l = chartPathLine(c, hr)
		}
		return located{file: e.Err.File, line: l,
			message: fmt.Sprintf("HelmRelease %s's chart cannot be loaded: %s, so source-controller's HelmChart fails and helm-controller installs or upgrades nothing: the release keeps what it has.",
				name, e.Err.Message),
			suggestion: fmt.Sprintf("Point HelmRelease %s at the folder that holds the chart's Chart.yaml (%s:%d): the path is relative to the root of the source's artifact, not to the HelmRelease's file; or add the folder %s with the chart's Chart.yaml and templates.",
				name, e.Err.File, l, e.Chart)}, true
	}
	m := parseError.FindStringSubmatch(e.Err.Message)
	if m == nil || e.Chart == "" {
		return located{}, false
	}
	file, line := repoTemplate(e.Chart, m[1]), 0
	data, ok := c.ReadFile(file)
	if line, _ = strconv.Atoi(m[2]); !ok || line < 1 {
		return located{}, false
	}
	why := fullParseError(m[1], string(data), m[3])
	return located{file: file, line: line,
		message: fmt.Sprintf("Template %s of HelmRelease %s's chart does not parse at line %d (%s), so helm-controller renders none of the chart: its install or upgrade fails and the release keeps what it has.",
			file, name, line, why),
		suggestion: fmt.Sprintf("Fix the Go template syntax of %s:%d (`helm template %s` shows the same error); every HelmRelease of this chart fails until then.",
			file, line, e.Chart),
		details: capMessage(e.Err.Message)}, true
}

// repoTemplate is the repository file of template name (Helm names "<chart>/templates/x.yaml",
// "<chart>/charts/<sub>/templates/x.yaml") in the chart folder dir.
func repoTemplate(dir, name string) string {
	_, rest, _ := strings.Cut(name, "/")
	return path.Join(dir, rest)
}

// fullParseError is text/template's whole reason for template name not parsing (Helm keeps
// only its last part: `"-o"` of `bad number syntax: "-o"`), read by parsing the text again
// without the function check (parse.SkipFuncCheck: Helm's functions are not at hand); terse,
// Helm's part, when that parse succeeds or names another line.
func fullParseError(name, text, terse string) string {
	t := parse.New(name)
	t.Mode = parse.SkipFuncCheck
	_, err := t.Parse(text, "", "", map[string]*parse.Tree{})
	if err == nil {
		return terse
	}
	msg := err.Error()
	// "template: <name>:<line>: <reason>"
	if i := strings.Index(msg, name+":"); i >= 0 {
		rest := msg[i+len(name)+1:]
		if _, reason, ok := strings.Cut(rest, ": "); ok && strings.HasSuffix(reason, terse) {
			return reason
		}
	}
	return terse
}

// chartPathLine is the line of the field that names hr's chart folder:
// spec.chart.spec.chart, else spec.chartRef, else spec.chart, else hr's own line.
func chartPathLine(c *graph.Cluster, hr *graph.Object) int {
	if l, n := keyLine(c, hr.File, hr.Line, "spec", "chart", "spec", "chart"); n == 4 {
		return l
	}
	return chartKeyLine(c, hr)
}
