package rules

import (
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// lineAfter returns the line, at or after from in file (of c's artifact) and inside the
// YAML document holding from, that matches the last of patterns, each searched from the
// line of the previous one (a flow mapping may hold both); from when one is missing. A
// later document is another object: what it holds never locates this one.
func lineAfter(c *graph.Cluster, file string, from int, patterns ...lineMatcher) int {
	lines, ok := c.Lines(file)
	if !ok {
		return from
	}
	return matchAfter(lines, from, documentEnd(lines, from), patterns)
}

// lineInFile is lineAfter over the whole file, every document: for a file that is not one
// object's manifest (a patch file may hold several patches).
func lineInFile(c *graph.Cluster, file string, from int, patterns ...lineMatcher) int {
	lines, ok := c.Lines(file)
	if !ok {
		return from
	}
	return matchAfter(lines, from, len(lines), patterns)
}

// matchAfter is lineAfter's search of lines[from-1:end].
func matchAfter(lines []string, from, end int, patterns []lineMatcher) int {
	i := max(from-1, 0)
	for _, p := range patterns {
		for ; i < end; i++ {
			if p.MatchString(lines[i]) {
				break
			}
		}
		if i >= end {
			return from
		}
	}
	return i + 1
}

// documentEnd is the index of the `---` line that ends the YAML document holding line from
// (1-based), len(lines) when it is the last.
func documentEnd(lines []string, from int) int {
	for i := max(from, 1); i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "---") {
			return i
		}
	}
	return len(lines)
}

var (
	dependsOnKey = regexp.MustCompile(`^\s*dependsOn:`)
	specKey      = regexp.MustCompile(`^spec:`)
)

// dependsOnLine locates the `- name: <name>` entry of ks's dependsOn list.
func dependsOnLine(c *graph.Cluster, ks *graph.Kustomization, name string) int {
	return dependsOnEntry(c, ks.File, ks.Line, name)
}

// dependsOnEntry locates the `- name: <name>` entry of the dependsOn list of the object
// whose manifest starts at file:line (a Kustomization or a HelmRelease), or the
// `dependsOn: [{name: <name>}]` line of a flow list; line when absent.
func dependsOnEntry(c *graph.Cluster, file string, line int, name string) int {
	block, flow := nameEntry(name), flowNameEntry(name)
	entry := matchFunc(func(l string) bool { return block.MatchString(l) || flow.MatchString(l) })
	return lineAfter(c, file, line, dependsOnKey, entry)
}

// flowNameEntry matches a `dependsOn: [{name: <name>}]` line: a `name:` key opening a flow
// mapping or following a comma, then the name (quoted or not) and the entry's end.
func flowNameEntry(name string) lineMatcher {
	return matchFunc(func(l string) bool {
		if !dependsOnKey.MatchString(l) {
			return false
		}
		for off := 0; ; {
			j := strings.Index(l[off:], "name:")
			if j < 0 {
				return false
			}
			at := off + j
			before := strings.TrimRight(l[:at], " \t")
			if before != "" && (before[len(before)-1] == '{' || before[len(before)-1] == ',') &&
				quotedAt(l[at+len("name:"):], name, flowEnd) {
				return true
			}
			off = at + len("name:")
		}
	})
}

// varLine locates the first use of ${name} (with or without an operator) in o's file.
func varLine(c *graph.Cluster, o *graph.Object, name string) int {
	return lineAfter(c, o.File, o.Line, usesVar(name))
}

// textLine locates the first line at or after o's that contains text.
func textLine(c *graph.Cluster, o *graph.Object, text string) int {
	return lineAfter(c, o.File, o.Line, contains(text))
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
// A field that is's manifest lacks was set by a patch: the place is the patch's line
// (patchedField), where the PR changes it.
// releaseFieldKeys are the spec keys releaseFieldLine looks for, as their lines open.
var releaseFieldKeys = map[string]*regexp.Regexp{
	"releaseName":      regexp.MustCompile(`^\s+releaseName:`),
	"targetNamespace":  regexp.MustCompile(`^\s+targetNamespace:`),
	"storageNamespace": regexp.MustCompile(`^\s+storageNamespace:`),
}

func releaseFieldLine(c *graph.Cluster, was, is *graph.Object) (string, int) {
	for _, field := range []string{"releaseName", "targetNamespace", "storageNamespace"} {
		v := bodyString(is.Body, "spec", field)
		if v == "" || was != nil && bodyString(was.Body, "spec", field) == v {
			continue
		}
		if line := lineAfter(c, is.File, is.Line, specKey, releaseFieldKeys[field]); line != is.Line {
			return is.File, line
		}
		if file, line, ok := patchedField(c, is, field); ok {
			return file, line
		}
		return is.File, is.Line
	}
	return is.File, is.Line
}

// patchedField locates the patch that sets field (a key name: "releaseName") on o, whose
// own manifest lacks it: the first line naming the field in the patches of the
// kustomization files from o's folder up to its Kustomization's path (kustomize applies a
// folder's patches to what its resources build), in the patch files they name, then in the
// Flux Kustomization's own spec.patches (kustomize-controller adds them to the generated
// kustomization, fluxcd/pkg kustomize Generator). ok is false when none names it.
func patchedField(c *graph.Cluster, o *graph.Object, field string) (string, int, bool) {
	key := wordIn(field)
	ks := c.Kustomizations[o.Owner]
	top := ""
	if ks != nil {
		top = cleanRel(ks.Spec.Path)
	}
	for dir := path.Dir(cleanRel(o.File)); ; dir = path.Dir(dir) {
		for _, name := range konfig.RecognizedKustomizationFileNames() {
			if file, line, ok := patchSectionLine(c, path.Join(dir, name), 1, key, true); ok {
				return file, line, true
			}
		}
		if dir == "." || dir == top || dir == "/" {
			break
		}
	}
	if ks != nil {
		if _, line, ok := patchSectionLine(c, ks.File, ks.Line, key, false); ok {
			return ks.File, line, true
		}
	}
	return "", 0, false
}

// patchesKey opens a kustomization's list of patches (at any indentation: a Flux
// Kustomization's is under spec).
var patchesKey = regexp.MustCompile(`^(\s*)(patches|patchesStrategicMerge|patchesJson6902)\s*:`)

// patchFile is a patch entry's `path:` to a patch file (YAML or JSON), not a JSON patch
// operation's `path: /spec/...`.
var patchFile = regexp.MustCompile(`^\s*-?\s*path:\s*["']?([^"'#\s]+\.(ya?ml|json))`)

// patchSectionLine returns the first line at or after from in file, inside a patches list
// of that YAML document, that matches key; with files, a patch file the list names (by
// `path:`, relative to file's folder) is searched too, and that file's first match given.
func patchSectionLine(c *graph.Cluster, file string, from int, key lineMatcher, files bool) (string, int, bool) {
	data, ok := c.ReadFile(file)
	if !ok {
		return "", 0, false
	}
	lines := strings.Split(string(data), "\n")
	indent := -1 // the patches key's indentation while inside its list
	for i := max(from-1, 0); i < len(lines); i++ {
		l := lines[i]
		if i >= from && strings.HasPrefix(l, "---") {
			break
		}
		if m := patchesKey.FindStringSubmatch(l); m != nil {
			indent = len(m[1])
			continue
		}
		if indent < 0 || strings.TrimSpace(l) == "" {
			continue
		}
		if len(l)-len(strings.TrimLeft(l, " ")) <= indent && !strings.HasPrefix(strings.TrimLeft(l, " "), "-") {
			indent = -1 // the next key of the same level: the list is over
			continue
		}
		if key.MatchString(l) && !patchFile.MatchString(l) {
			return file, i + 1, true
		}
		if m := patchFile.FindStringSubmatch(l); files && m != nil {
			p := path.Join(path.Dir(file), m[1])
			if pl := lineInFile(c, p, 1, key); pl != 1 || lineMatches(c, p, 1, key) {
				return p, pl, true
			}
		}
	}
	return "", 0, false
}

// lineMatches reports whether line n of file matches re.
func lineMatches(c *graph.Cluster, file string, n int, re lineMatcher) bool {
	data, ok := c.ReadFile(file)
	if !ok {
		return false
	}
	lines := strings.Split(string(data), "\n")
	return n >= 1 && n <= len(lines) && re.MatchString(lines[n-1])
}

// keyLine locates the YAML key path (["spec", "chart", "spec", "version"]) in the
// manifest whose kind: line is file:from: each key is looked for among the direct
// children of the previous one (by indentation, inside that document only). It returns
// the line of the deepest key found, from when not even the first is, and how many of the
// keys were found. A flow mapping (`values: {a: 1}`) has no child lines: the search stops
// at its key.
func keyLine(c *graph.Cluster, file string, from int, path ...string) (int, int) {
	lines, ok := c.Lines(file)
	if !ok || from < 1 {
		return from, 0
	}
	if from > len(lines) {
		return from, 0
	}
	start, end := from-1, from
	for start > 0 && !strings.HasPrefix(lines[start-1], "---") {
		start--
	}
	for end < len(lines) && !strings.HasPrefix(lines[end], "---") {
		end++
	}
	line, found := from, 0
	parent := -1 // the indentation of the key found last; -1 before the top level
	i := start
	for _, key := range path {
		child := -1 // the indentation of parent's children, set by the first one
		hit := false
		for ; i < end; i++ {
			ind, k, ok := yamlKey(lines[i])
			if !ok {
				continue
			}
			if ind <= parent {
				break // parent's block ends
			}
			if child < 0 {
				child = ind
			}
			if ind == child && k == key {
				hit = true
				break
			}
		}
		if !hit {
			break
		}
		line, found, parent = i+1, found+1, child
		i++
	}
	return line, found
}

// yamlKeyRE matches a block mapping key, after any "- " of sequence entries.
var yamlKeyRE = regexp.MustCompile(`^( *)((?:- +)*)(?:"([^"]*)"|'([^']*)'|([^\s"'#:][^:#]*?))\s*:(?:\s|$)`)

// yamlKey reads a line as a mapping key: its indentation (sequence dashes count as
// indentation, as YAML reads an entry's keys) and name; false for blank lines, comments
// and anything else.
func yamlKey(l string) (int, string, bool) {
	m := yamlKeyRE.FindStringSubmatch(l)
	if m == nil {
		return 0, "", false
	}
	return len(m[1]) + len(m[2]), m[3] + m[4] + m[5], true
}

// valueLine locates, inside the block of key path in the manifest at file:from, the first
// line that sets a key to the scalar value (`namespace: monitoring`, or `{ns: monitoring}`
// in a flow mapping); false when none does.
func valueLine(c *graph.Cluster, file string, from int, value string, path ...string) (int, bool) {
	start, n := keyLine(c, file, from, path...)
	if n != len(path) {
		return from, false
	}
	lines, _ := c.Lines(file)
	ind, _, _ := yamlKey(lines[start-1])
	sets := setsValue(value)
	for i := start - 1; i < len(lines); i++ {
		if i > start-1 {
			if strings.HasPrefix(lines[i], "---") {
				break
			}
			if k, _, ok := yamlKey(lines[i]); ok && k <= ind {
				break
			}
		}
		if sets.MatchString(lines[i]) {
			return i + 1, true
		}
	}
	return from, false
}
