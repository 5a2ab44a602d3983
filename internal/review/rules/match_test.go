package rules

import (
	"regexp"
	"strings"
	"testing"
)

// TestMatchersAsRegexps: each matcher of a finding's name matches exactly the lines the
// regexp it replaces (compiled here, once per name, as the rules did per finding)
// matches, over lines made to try the regexps' corners: quotes, spaces around the name,
// comments, flow mappings, a name inside a longer word, names with regexp and YAML
// characters.
func TestMatchersAsRegexps(t *testing.T) {
	names := []string{"web", "a.b", "x*y", "", " web", "web ", "'web", "w#b", "${V}", "V", "V_1", "é", "name"}
	shapes := []string{
		"name: %s", "  - name: %s", "  -   name:   %s  ", `- name: "%s"`, "- name: '%s' # note", "name: %s#x", "name: %s # x",
		"name: %sx", "name: x%s", `name: "%s`, `name: %s"`, "name:%s", "	name:	%s	", "name: %s, b: 1", "kind: %s", "kind:  '%s'",
		"  name: %s", "  name: %s ", "  kind: %s", "{a: 1, ns: %s}", "{ns: %s, a: 1}", "ns: \"%s\" # c", "a:b: %s", "- ns: %s}", "x,ns:%s",
		"${%s}", "${%s:=1}", "${%sA}", "$${%s}", "x${%s", "%s", "a%s", "%s_", "_%s", "é%s", "%sé", "-%s-", "- %s:", "  - - %s :", "%s: 1", "-%s :",
		"spec: %s", "", "name: ", "a#b: %s", "é: %s", "{é:%s}", "- - name: %s", "-name: %s", " - name:%s", "kind:%s", " kind: %s",
		"\tname: %s", "{ns:%s}", ":%s", "{: %s}",
	}
	quote := func(s string) string { return regexp.QuoteMeta(s) }
	for _, name := range names {
		cases := []struct {
			what string
			m    lineMatcher
			re   string
		}{
			{"nameEntry", nameEntry(name), `^\s*(-\s*)?name:\s*["']?` + quote(name) + `["']?\s*(#.*)?$`},
			{"kind line", scalarLine(kindKeyTop, name, lineEnd), `^kind:\s*["']?` + quote(name) + `["']?\s*$`},
			{"name line", scalarLine(nameKeyInner, name, lineEnd), `^\s+name:\s*["']?` + quote(name) + `["']?\s*$`},
			{"setsValue", setsValue(name), `(^|[\s{,])[^\s{},:#]+:\s*["']?` + quote(name) + `["']?\s*($|[,}#])`},
			{"usesVar", usesVar(name), `\$\{` + quote(name) + `([^A-Za-z0-9_]|$)`},
			{"wordIn", wordIn(name), `(^|[^A-Za-z0-9_])` + quote(name) + `([^A-Za-z0-9_]|$)`},
			{"keyPrefixed", keyPrefixed(name), `^[\s-]*` + quote(name) + `\s*:`},
			{"contains", contains(name), quote(name)},
		}
		for _, tc := range cases {
			re := regexp.MustCompile(tc.re)
			hits := 0
			for _, shape := range shapes {
				l := strings.ReplaceAll(shape, "%s", name)
				got, want := tc.m.MatchString(l), re.MatchString(l)
				if got != want {
					t.Errorf("%s(%q) on %q: %v, the regexp %v", tc.what, name, l, got, want)
				}
				if got {
					hits++
				}
			}
			// The lines try both answers: some match, some do not.
			if name == "web" && (hits == 0 || hits == len(shapes)) {
				t.Errorf("%s(web) matches %d of %d lines", tc.what, hits, len(shapes))
			}
		}
	}
}

// TestMatchersExactBytes: a name with invalid UTF-8 (from a hostile file) finds itself
// and no other bytes; the regexps matched any invalid byte for any other (U+FFFD).
func TestMatchersExactBytes(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       bool
	}{
		{"a\xb3b", "name: a\xb3b", true},
		{"a\xb3b", "name: a\xffb", false},
		{"a\xb3b", "name: a b", false},
		{"a\xb3b", "name: a\uFFFDb", false},
	} {
		if got := nameEntry(tc.name).MatchString(tc.line); got != tc.want {
			t.Errorf("nameEntry(%q) on %q: %v, want %v", tc.name, tc.line, got, tc.want)
		}
		if got := contains(tc.name).MatchString(tc.line); got != tc.want {
			t.Errorf("contains(%q) on %q: %v, want %v", tc.name, tc.line, got, tc.want)
		}
	}
}

// BenchmarkNameEntry locates a dependsOn entry in a 40-line manifest, as one finding does:
// with the matcher, and with the regexp compiled per finding it replaces.
func BenchmarkNameEntry(b *testing.B) {
	var lines []string
	for i := range 40 {
		lines = append(lines, "  - name: dep-"+strings.Repeat("x", i%7)+" # entry")
	}
	lines = append(lines, "  - name: web")
	find := func(m lineMatcher) {
		for _, l := range lines {
			if m.MatchString(l) {
				return
			}
		}
	}
	b.Run("matcher", func(b *testing.B) {
		for b.Loop() {
			find(nameEntry("web"))
		}
	})
	b.Run("regexp", func(b *testing.B) {
		for b.Loop() {
			find(regexp.MustCompile(`^\s*(-\s*)?name:\s*["']?` + regexp.QuoteMeta("web") + `["']?\s*(#.*)?$`))
		}
	})
}
