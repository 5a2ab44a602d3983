package rules

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// lineAfter returns the line, at or after from in file (of c's artifact), that matches
// the last of patterns, each searched after the previous one; from when one is missing.
func lineAfter(c *graph.Cluster, file string, from int, patterns ...*regexp.Regexp) int {
	data, ok := c.ReadFile(file)
	if !ok {
		return from
	}
	lines := strings.Split(string(data), "\n")
	i := max(from-1, 0)
	for _, p := range patterns {
		for ; i < len(lines); i++ {
			if p.MatchString(lines[i]) {
				break
			}
		}
		if i >= len(lines) {
			return from
		}
	}
	return i + 1
}

var (
	dependsOnKey = regexp.MustCompile(`^\s*dependsOn:`)
	specKey      = regexp.MustCompile(`^spec:`)
)

// literal is a pattern matching s. Invalid UTF-8, which regexp refuses to compile, becomes
// U+FFFD, which matches any invalid byte of the searched text as regexp decodes it.
func literal(s string) string { return regexp.QuoteMeta(strings.ToValidUTF8(s, "\uFFFD")) }

// dependsOnLine locates the `- name: <name>` entry of ks's dependsOn list.
func dependsOnLine(c *graph.Cluster, ks *graph.Kustomization, name string) int {
	return dependsOnEntry(c, ks.File, ks.Line, name)
}

// dependsOnEntry locates the `- name: <name>` entry of the dependsOn list of the object
// whose manifest starts at file:line (a Kustomization or a HelmRelease); line when absent.
func dependsOnEntry(c *graph.Cluster, file string, line int, name string) int {
	entry := regexp.MustCompile(`^\s*(-\s*)?name:\s*["']?` + literal(name) + `["']?\s*(#.*)?$`)
	return lineAfter(c, file, line, dependsOnKey, entry)
}

// varLine locates the first use of ${name} (with or without an operator) in o's file.
func varLine(c *graph.Cluster, o *graph.Object, name string) int {
	use := regexp.MustCompile(`\$\{` + literal(name) + `([^A-Za-z0-9_]|$)`)
	return lineAfter(c, o.File, o.Line, use)
}

// textLine locates the first line at or after o's that contains text.
func textLine(c *graph.Cluster, o *graph.Object, text string) int {
	return lineAfter(c, o.File, o.Line, regexp.MustCompile(literal(text)))
}

// samePath reports whether two spec.path values name the same folder ("./infra", "infra/").
func samePath(a, b string) bool {
	clean := func(p string) string { return strings.TrimPrefix(filepath.ToSlash(filepath.Clean("/"+p)), "/") }
	return clean(a) == clean(b)
}

// releaseFieldLine locates, in HelmRelease is (of c), the line of the first of
// spec.releaseName, spec.targetNamespace and spec.storageNamespace that is set and differs
// from was (nil: any that is set): the line a forge shows in the diff of a changed release
// target. is's own line when none is.
func releaseFieldLine(c *graph.Cluster, was, is *graph.Object) int {
	for _, field := range []string{"releaseName", "targetNamespace", "storageNamespace"} {
		v := bodyString(is.Body, "spec", field)
		if v == "" || was != nil && bodyString(was.Body, "spec", field) == v {
			continue
		}
		return lineAfter(c, is.File, is.Line, specKey, regexp.MustCompile(`^\s+`+field+`:`))
	}
	return is.Line
}
