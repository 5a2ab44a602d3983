package rules

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// renderCause is what a helm-render-error's message says fails, where in the HelmRelease
// to fix it, and how.
type renderCause struct {
	line   int
	advice string
}

// Helm's and helm-controller's error texts that name a cause (render/helm.Render wraps them
// as "render HelmRelease ns/name (chart NAME VERSION): <Helm's error>").
var (
	// renderPrefix is render/helm.Render's wrapping; its chart name is the top chart's
	// section in a schema error.
	renderPrefix = regexp.MustCompile(`^render HelmRelease \S+ \(chart (\S+) [^)]*\): `)
	// execError is a template's `required` or `fail` (Helm pkg/engine funcs.go: both
	// return an error the engine reports as "execution error at (<template>:<l>:<c>): <msg>").
	execError = regexp.MustCompile(`execution error at \(([^)]+)\): (.*)`)
	// valuesRef is a values path a template reads, as the engine names it in a nil
	// pointer or a type error ("at <.Values.image.tag>: nil pointer evaluating ...").
	valuesRef = regexp.MustCompile(`\.Values((?:\.[A-Za-z_][\w-]*)+)`)
	// askedKey is a values key a `required`/`fail` message names in the usual phrasing:
	// "set ingress.host" (a dotted or quoted key: "set a password" names none) or
	// "password is required".
	askedKey = regexp.MustCompile(`(?i)(?:^|\s)(?:set|specify|provide|define)\s+(?:` + "`" + `([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)` + "`" +
		`|([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+))` +
		"|" + "(?:^|\\s)`?" + `([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)` + "`?" + `\s+(?:is|are|must be)\s+(?:required|set|specified|provided|defined|mandatory)`)
	// notKeys are words the phrasing catches that name no key ("This is required").
	notKeys = map[string]bool{"this": true, "that": true, "it": true, "which": true, "value": true, "values": true, "field": true, "key": true, "one": true, "something": true}
	// schemaError is a values.schema.json violation (Helm's "values don't meet the
	// specifications of the schema(s) in the following chart(s)", with render/helm's
	// jsonschema lines "- at '/a/b': <constraint>" under each chart's name).
	schemaError = regexp.MustCompile(`values don't meet the specifications of the schema\(s\) in the following chart\(s\):\n`)
	schemaLine  = regexp.MustCompile(`^- at '([^']*)': (.*)$`)
	namedProp   = regexp.MustCompile(`^(?:missing propert(?:y|ies)|additional propert(?:y|ies)) '([^']+)'`)
	// noTemplate is an include of a named template no file of the chart defines: the
	// library chart that defines it is missing (Go text/template's "no template %q
	// associated with template %q", through Helm's include).
	noTemplate = regexp.MustCompile(`no template "([^"]+)" associated with template`)
	// missingDep is Helm's check of Chart.yaml's dependencies against charts/
	// (pkg/action/dependency.go CheckDependencies).
	missingDep = regexp.MustCompile(`found in Chart\.yaml, but missing in charts/ directory: (.+)`)
	// kubeVersionError is Helm's Chart.yaml kubeVersion check (pkg/action/install.go
	// RunWithContext, chartutil.IsCompatibleRange).
	kubeVersionError = regexp.MustCompile(`chart requires kubeVersion: (.+) which is incompatible with Kubernetes (v\S+)`)
	// apiVersionRef is an API group/version a template's message names
	// ("monitoring.coreos.com/v1"): the chart checks .Capabilities.APIVersions.
	apiVersionRef = regexp.MustCompile(`\b([a-z0-9-]+(?:\.[a-z0-9-]+)+/v[0-9]+(?:(?:alpha|beta)[0-9]+)?)(?:/([A-Z][A-Za-z0-9]*))?\b`)
	// postRenderError is Helm's wrapping of a post-renderer's failure (pkg/action
	// renderResources): a postRenderers patch or image, or the origin labels' ResMap.
	postRenderError = regexp.MustCompile(`error while running post render on files: (.*)`)
	duplicateID     = regexp.MustCompile(`may not add resource with an already registered id: (\S+)`)
)

// causeOf reads a helm-render-error's message msg for HelmRelease hr (nil when its
// manifest is not known) and says which line of hr to point at and what to do.
func causeOf(c *graph.Cluster, hr *graph.Object, name, msg string) renderCause {
	at := func(path ...string) int {
		if hr == nil {
			return 0
		}
		if l, n := keyLine(c, hr.File, hr.Line, path...); n == len(path) {
			return l
		}
		return hr.Line
	}
	loc := func(line int) string {
		if hr == nil {
			return ""
		}
		return fmt.Sprintf("%s:%d", hr.File, line)
	}
	top := ""
	if m := renderPrefix.FindStringSubmatch(msg); m != nil {
		top, msg = m[1], msg[len(m[0]):]
	}
	switch {
	case kubeVersionError.MatchString(msg):
		m := kubeVersionError.FindStringSubmatch(msg)
		return renderCause{line: chartKeyLine(c, hr), advice: fmt.Sprintf(
			"The chart requires Kubernetes %s and tiergate renders for %s: if the cluster runs a version the chart accepts, set `kubeVersion:` in .tiergate.yaml to it; otherwise pin a chart version of HelmRelease %s that supports the cluster's.",
			m[1], m[2], name)}
	case noTemplate.MatchString(msg), missingDep.MatchString(msg):
		what := ""
		if m := noTemplate.FindStringSubmatch(msg); m != nil {
			what = fmt.Sprintf("the chart includes the template %q, which none of its files defines: the library chart that defines it is missing", m[1])
		} else {
			what = "the chart's dependencies " + strings.TrimSpace(missingDep.FindStringSubmatch(msg)[1]) + " are not in its charts/ folder"
		}
		return renderCause{line: chartKeyLine(c, hr), advice: fmt.Sprintf(
			"Of HelmRelease %s's chart, %s. List the dependency in Chart.yaml `dependencies:` and run `helm dependency build` in the chart's folder, then commit its charts/ (source-controller packages a Git chart's charts/ as the tree holds them); for a chart from a repository, use a version that packages it.",
			name, what)}
	case schemaError.MatchString(msg):
		return schemaCause(c, hr, name, top, msg[schemaError.FindStringIndex(msg)[1]:])
	case postRenderError.MatchString(msg):
		detail := postRenderError.FindStringSubmatch(msg)[1]
		if m := duplicateID.FindStringSubmatch(detail); m != nil {
			l := at("spec", "values")
			return renderCause{line: l, advice: fmt.Sprintf(
				"The chart of HelmRelease %s renders %s twice (a template and a hook, or two templates), which helm-controller's post-render rejects: set its values (%s) so that only one of them renders.",
				name, m[1], loc(l))}
		}
		l := at("spec", "postRenderers")
		return renderCause{line: l, advice: fmt.Sprintf("Fix spec.postRenderers of HelmRelease %s (%s) so that it applies to what the chart renders: %s.", name, loc(l), brief(detail))}
	}
	if m := execError.FindStringSubmatch(msg); m != nil {
		if api := apiVersionRef.FindStringSubmatch(m[2]); api != nil {
			entry := api[1]
			if api[2] != "" {
				entry += "/" + api[2]
			}
			return renderCause{line: chartKeyLine(c, hr), advice: fmt.Sprintf(
				"The chart stops because the cluster does not serve %s (%q, template %s): if the cluster serves it (a CRD installed out of band), add `- %s` to `apiVersions:` in .tiergate.yaml; otherwise install its CRD first (a Kustomization or HelmRelease that HelmRelease %s depends on).",
				entry, brief(m[2]), m[1], entry, name)}
		}
		key := firstKey(m[2])
		if key == "" {
			if guard := guardKey(c, hr, m[1]); guard != "" {
				l := valuesLine(c, hr, guard)
				return renderCause{line: l, advice: fmt.Sprintf("Change `%s` in the values of HelmRelease %s (spec.values, %s, or the valuesFrom source that holds it): template %s reads it where it stops with %q.",
					guard, name, loc(l), m[1], brief(m[2]))}
			}
		}
		l := valuesLine(c, hr, key)
		if key == "" {
			return renderCause{line: l, advice: fmt.Sprintf("Give HelmRelease %s the values its chart asks for (`required`/`fail` in template %s: %q), in spec.values (%s) or the valuesFrom source that holds them.",
				name, m[1], brief(m[2]), loc(l))}
		}
		return renderCause{line: l, advice: fmt.Sprintf("Set `%s` in the values of HelmRelease %s (spec.values, %s, or the valuesFrom source that holds it): template %s stops with %q without it.",
			key, name, loc(l), m[1], brief(m[2]))}
	}
	if m := valuesRef.FindStringSubmatch(msg); m != nil {
		key := strings.TrimPrefix(m[1], ".")
		l := valuesLine(c, hr, key)
		return renderCause{line: l, advice: fmt.Sprintf("Set `%s` in the values of HelmRelease %s (spec.values, %s) to what the chart expects there: a template reads .Values.%s and fails (%s).",
			key, name, loc(l), key, strings.TrimSpace(msg[strings.LastIndex(msg, ">:")+2:]))}
	}
	return renderCause{}
}

// schemaCause is the cause of a values.schema.json violation: each path and its
// constraint, at the values key of the first.
func schemaCause(c *graph.Cluster, hr *graph.Object, name, top, body string) renderCause {
	section := ""
	var parts []string
	first := ""
	for _, l := range strings.Split(body, "\n") {
		m := schemaLine.FindStringSubmatch(l)
		if m == nil {
			if s, ok := strings.CutSuffix(strings.TrimSpace(l), ":"); ok && !strings.HasPrefix(s, "-") {
				section = s
			}
			continue
		}
		var segs []string
		if section != "" && section != top {
			segs = append(segs, section)
		}
		for _, s := range strings.Split(strings.TrimPrefix(m[1], "/"), "/") {
			if s != "" {
				segs = append(segs, strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~"))
			}
		}
		if p := namedProp.FindStringSubmatch(m[2]); p != nil && !strings.Contains(p[1], "'") {
			segs = append(segs, p[1])
		}
		key := strings.Join(segs, ".")
		if first == "" {
			first = key
		}
		if key == "" {
			key = "(the values)"
		}
		parts = append(parts, fmt.Sprintf("`%s`: %s", key, m[2]))
	}
	l := valuesLine(c, hr, first)
	where := ""
	if hr != nil {
		where = fmt.Sprintf(" (%s:%d)", hr.File, l)
	}
	return renderCause{line: l, advice: fmt.Sprintf("Make the values of HelmRelease %s%s meet the chart's values.schema.json: %s.", name, where, strings.Join(parts, "; "))}
}

// templateAt is Helm's "<chart>/<path>:<line>:<col>" of an execution error.
var templateAt = regexp.MustCompile(`^([^/]+)/(.+):(\d+):(\d+)$`)

// guardMaxLines bounds how far above the failing action guardKey looks for the condition.
const guardMaxLines = 3

// guardKey is the values key a `fail` that names none depends on: the last .Values
// reference before the failing action at loc (Helm's "app/templates/x.yaml:2:4"), on its
// line or up to guardMaxLines above (the `if` that guards it), read from the chart's
// template in the repository. "" when the chart is not a folder of the cluster's own
// source (its spec.chart.spec.sourceRef is not the root's) or no reference is found.
func guardKey(c *graph.Cluster, hr *graph.Object, loc string) string {
	m := templateAt.FindStringSubmatch(loc)
	if m == nil || hr == nil || !inRootSource(c, hr) {
		return ""
	}
	dir := strings.TrimPrefix(path.Clean(bodyString(hr.Body, "spec", "chart", "spec", "chart")), "/")
	lines, ok := c.Lines(path.Join(dir, m[2]))
	if !ok {
		return ""
	}
	line, _ := strconv.Atoi(m[3])
	col, _ := strconv.Atoi(m[4])
	if line < 1 || line > len(lines) {
		return ""
	}
	for i := line - 1; i >= 0 && i >= line-1-guardMaxLines; i-- {
		text := lines[i]
		if i == line-1 && col-1 <= len(text) && col >= 1 {
			text = text[:col-1] // the guard precedes the action on its own line
		}
		if refs := valuesRef.FindAllStringSubmatch(text, -1); len(refs) > 0 {
			return strings.TrimPrefix(refs[len(refs)-1][1], ".")
		}
	}
	return ""
}

// inRootSource reports whether HelmRelease hr's spec.chart names a chart of the source
// the cluster's root builds from (the repository tiergate reads): a GitRepository of the
// root's name and namespace (the sourceRef's namespace defaults to the HelmRelease's).
func inRootSource(c *graph.Cluster, hr *graph.Object) bool {
	root := c.Kustomizations[c.Root]
	if root == nil || bodyString(hr.Body, "spec", "chart", "spec", "sourceRef", "kind") != "GitRepository" {
		return false
	}
	ns := bodyString(hr.Body, "spec", "chart", "spec", "sourceRef", "namespace")
	if ns == "" {
		ns = hr.ID.Namespace
	}
	src := root.Spec.SourceRef
	return src.Kind == "GitRepository" && src.Name == bodyString(hr.Body, "spec", "chart", "spec", "sourceRef", "name") &&
		(src.Namespace == ns || (src.Namespace == "" && root.Ref.Namespace == ns))
}

// firstKey is the values key a `required`/`fail` message names: a .Values path first,
// else a key in the usual phrasing ("image.tag is required", "set ingress.host"); "" when
// it names none.
func firstKey(msg string) string {
	if m := valuesRef.FindStringSubmatch(msg); m != nil {
		return strings.TrimPrefix(m[1], ".")
	}
	if m := askedKey.FindStringSubmatch(msg); m != nil {
		if k := m[1] + m[2] + m[3]; !notKeys[strings.ToLower(k)] {
			return k
		}
	}
	return ""
}

// valuesLine locates key ("image.tag", numeric segments being list indices) in hr's
// spec.values: the deepest of its keys that is there, else `values:`, else `valuesFrom:`
// (the values come from elsewhere), else the HelmRelease's own line.
func valuesLine(c *graph.Cluster, hr *graph.Object, key string) int {
	if hr == nil {
		return 0
	}
	path := []string{"spec", "values"}
	for _, s := range strings.Split(key, ".") {
		if s == "" || strings.Trim(s, "0123456789") == "" {
			break
		}
		path = append(path, s)
	}
	if l, n := keyLine(c, hr.File, hr.Line, path...); n >= 2 {
		return l
	}
	if l, n := keyLine(c, hr.File, hr.Line, "spec", "valuesFrom"); n == 2 {
		return l
	}
	return hr.Line
}

// chartKeyLine locates hr's spec.chart, else its spec.chartRef, else its own line: where
// the chart a HelmRelease installs is named.
func chartKeyLine(c *graph.Cluster, hr *graph.Object) int {
	if hr == nil {
		return 0
	}
	for _, k := range []string{"chart", "chartRef"} {
		if l, n := keyLine(c, hr.File, hr.Line, "spec", k); n == 2 {
			return l
		}
	}
	return hr.Line
}

// maxQuote caps, in bytes, the part of Helm's message a suggestion quotes: the message
// itself is in the finding (capMessage), the suggestion needs only enough to recognise it.
const maxQuote = 300

// brief is s cut to maxQuote bytes on a rune boundary, "…" marking the cut.
func brief(s string) string {
	if len(s) <= maxQuote {
		return s
	}
	n := maxQuote
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
