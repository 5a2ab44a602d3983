package kustomize

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"
	kyamlutils "sigs.k8s.io/kustomize/kyaml/utils"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// maxKustomizationDirs bounds the folders ReplacementCopies reads kustomization files
// from: past it the build's copies are not known (Complete false).
const maxKustomizationDirs = 500

// secretCopy is one field a kustomize replacement wrote a Secret value into, as the build
// left it (before postBuild substitution).
type secretCopy struct {
	path  []string // to the field: map keys, list indices as decimal strings
	text  string   // the field's whole text after the build
	start int      // the Secret-derived bytes of text are text[start:end]
	end   int
	// value is the Secret-derived text; where anywhere is true (a field inside a JSON or
	// YAML string, kustomize's setValueInStructuredData) every occurrence of it is.
	value    string
	anywhere bool
}

// Copies is where a build's replacements wrote Secret values: the exact fields and
// bytes, for each resource of the build's resmap. Complete is false when some
// replacement, var or kustomization file of the build could not be read or resolved
// (a remote base, a source not found, a var): MarkBuildSecrets's equality heuristic is
// then still needed for that build.
type Copies struct {
	byRes    map[*resource.Resource][]secretCopy
	Complete bool
	earlier  func(*resource.Resource) []resid.ResId
}

// ReplacementCopies reads the replacements (inline and `path:` files) of the
// kustomization file in dir (a folder relative to snap's root) and of every folder its
// resources and components reach in snap, plus extra (Flux spec.components, relative to
// dir), and resolves them against res, the build's output, as kustomize's replacement
// filter does (sigs.k8s.io/kustomize/api/filters/replacement: Filter.Filter,
// getReplacement, selectSourceNode, getRefinedValue, applyReplacement,
// selectByAnnoAndLabel, copyValueToTarget, setFieldValue): a replacement whose source is a
// Secret of the build (kind Secret, a field under data or stringData; or a field an
// earlier replacement wrote a Secret value into) marks each target field of each selected,
// not rejected, object, and within it exactly the Secret-derived piece (options.delimiter
// and index). Targets are verified against what the build wrote: a field a later
// replacement overwrote is not marked. A base's replacements are resolved against the
// output's names; one whose source is not found (renamed by an overlay) makes the result
// incomplete. Legacy vars ($(NAME), kustomize api types.Var) are resolved as kustomize
// resolves them and their positions found in each object's source document (varCopies).
//
// A replacement into metadata.name or metadata.namespace renames its target, and the
// output keeps no record of the id kustomize selected it by: earlier gives, for a
// resource, the ids it may have had (its source document's, with the build's name prefix
// and suffix), which select it too.
func ReplacementCopies(snap *graph.Snapshot, dir string, extra []string, res resmap.ResMap, earlier func(*resource.Resource) []resid.ResId) *Copies {
	c := &Copies{byRes: map[*resource.Resource][]secretCopy{}, Complete: true, earlier: earlier}
	repls, vars, ok := buildReplacements(snap, dir, extra)
	if !ok {
		c.Complete = false
	}
	if len(repls)+len(vars) == 0 || res == nil {
		return c
	}
	rs := res.Resources()
	tainted := map[*resource.Resource]map[string]bool{}
	for _, r := range repls {
		if !c.apply(rs, r, tainted) {
			c.Complete = false
		}
	}
	// kustomize resolves vars once everything is accumulated, replacements included
	// (KustTarget.makeCustomizedResMap: AccumulateTarget, then ResolveVars): a var may
	// read what a replacement wrote.
	if len(vars) > 0 {
		values, secret, ok := c.varValues(rs, vars, tainted)
		if ok {
			c.varCopies(snap, dir, rs, values, secret)
		} else {
			c.Complete = false
		}
	}
	return c
}

// buildReplacements lists, in build order per file, the replacements and the legacy vars
// of the kustomization files reachable from dir, false when one could not be read.
func buildReplacements(snap *graph.Snapshot, dir string, extra []string) ([]kustypes.Replacement, []kustypes.Var, bool) {
	var out []kustypes.Replacement
	var vars []kustypes.Var
	complete := true
	seen := map[string]bool{}
	queue := []string{path.Clean(dir)}
	for _, e := range extra {
		queue = append(queue, path.Join(dir, e))
	}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if seen[d] {
			continue
		}
		if len(seen) >= maxKustomizationDirs || d == ".." || strings.HasPrefix(d, "../") {
			return out, vars, false
		}
		seen[d] = true
		k, found, ok := readKustomization(snap, d)
		if !ok {
			complete = false
		}
		if !found {
			continue
		}
		vars = append(vars, k.Vars...)
		for _, rf := range k.Replacements {
			list, ok := replacementsOf(snap, d, rf)
			complete = complete && ok
			out = append(out, list...)
		}
		for _, e := range append(slices.Clone(k.Resources), k.Components...) {
			p := path.Join(d, e)
			switch snap.State(p) {
			case "dir":
				queue = append(queue, p)
			case "file":
			default: // a URL, a symlink or a path outside: content not known here
				complete = false
			}
		}
	}
	return out, vars, complete
}

// readKustomization parses the kustomization file of dir: found false when it has none,
// ok false when it cannot be read.
func readKustomization(snap *graph.Snapshot, dir string) (k kustypes.Kustomization, found, ok bool) {
	for _, n := range konfig.RecognizedKustomizationFileNames() {
		p := path.Join(dir, n)
		if snap.State(p) != "file" {
			continue
		}
		data, read := snap.Read(p)
		if !read || sigsyaml.Unmarshal(data, &k) != nil {
			return k, true, false
		}
		return k, true, true
	}
	return k, false, true
}

// replacementsOf returns rf itself, or the replacements of its `path:` file (a list or
// one, as kustomize's ReplacementTransformerPlugin.Config reads it); false when the file
// cannot be read.
func replacementsOf(snap *graph.Snapshot, dir string, rf kustypes.ReplacementField) ([]kustypes.Replacement, bool) {
	if rf.Path == "" {
		return []kustypes.Replacement{rf.Replacement}, true
	}
	data, ok := snap.Read(path.Join(dir, rf.Path))
	if !ok {
		return nil, false
	}
	var list []kustypes.Replacement
	if sigsyaml.Unmarshal(data, &list) == nil {
		return list, true
	}
	var one kustypes.Replacement
	if sigsyaml.Unmarshal(data, &one) == nil {
		return []kustypes.Replacement{one}, true
	}
	return nil, false
}

// apply resolves one replacement against rs and records its Secret copies; false when
// its source is not found as kustomize would find it.
func (c *Copies) apply(rs []*resource.Resource, r kustypes.Replacement, tainted map[*resource.Resource]map[string]bool) bool {
	if r.Source == nil || r.SourceValue != nil {
		return r.Source == nil && r.SourceValue != nil // a literal value is no Secret
	}
	src := c.selectSource(rs, r.Source)
	if src == nil {
		return false
	}
	fp := r.Source.FieldPath
	if fp == "" {
		fp = kustypes.DefaultReplacementFieldPath
	}
	fields := kyamlutils.SmarterPathSplitter(fp, ".")
	if !secretSource(src, fields, tainted) {
		return true
	}
	node, err := src.Pipe(yaml.Lookup(fields...))
	if err != nil || node.IsNilOrEmpty() {
		return false
	}
	values := leafValues(node.YNode())
	if o := r.Source.Options; o != nil && o.Delimiter != "" && node.YNode().Kind == yaml.ScalarNode {
		pieces := strings.Split(node.YNode().Value, o.Delimiter)
		if o.Index < 0 || o.Index >= len(pieces) {
			return false
		}
		values = []string{pieces[o.Index]}
	}
	for _, t := range r.Targets {
		if t == nil || t.Select == nil {
			return false
		}
		tsr, err := kustypes.NewTargetSelectorRegex(t)
		if err != nil {
			return false
		}
		for _, res := range rs {
			if !selectsTarget(res, t, tsr, c.resIDs(res)) {
				continue
			}
			paths := t.FieldPaths
			if len(paths) == 0 {
				paths = []string{kustypes.DefaultReplacementFieldPath}
			}
			for _, p := range paths {
				for _, cp := range targetCopies(res, kyamlutils.SmarterPathSplitter(p, "."), values, t.Options) {
					c.byRes[res] = append(c.byRes[res], cp)
					if tainted[res] == nil {
						tainted[res] = map[string]bool{}
					}
					tainted[res][strings.Join(cp.path, "\x00")] = true
				}
			}
		}
	}
	return true
}

// selectSource is kustomize's selectSourceNode: the one resource whose id the source's
// ResId selects; nil when none or several.
func (c *Copies) selectSource(rs []*resource.Resource, s *kustypes.SourceSelector) *resource.Resource {
	var match *resource.Resource
	for _, r := range rs {
		if slices.ContainsFunc(c.resIDs(r), func(id resid.ResId) bool { return id.IsSelectedBy(s.ResId) }) {
			if match != nil {
				return nil
			}
			match = r
		}
	}
	return match
}

// resIDs are the ids kustomize's utils.MakeResIds gives r (its current id and the ids its
// build annotations recorded before a rename), and the earlier ones c knows.
func (c *Copies) resIDs(r *resource.Resource) []resid.ResId {
	ids := append([]resid.ResId{r.CurId()}, r.PrevIds()...)
	if c.earlier != nil {
		ids = append(ids, c.earlier(r)...)
	}
	return ids
}

// secretSource reports whether fields of src hold a Secret value: src is a core Secret
// and fields start at data or stringData, or an earlier replacement wrote a Secret value
// at fields (or above them).
func secretSource(src *resource.Resource, fields []string, tainted map[*resource.Resource]map[string]bool) bool {
	if id := src.CurId(); id.Group == "" && id.Kind == "Secret" && len(fields) > 0 && (fields[0] == "data" || fields[0] == "stringData") {
		return true
	}
	for i := range fields {
		if tainted[src][strings.Join(fields[:i+1], "\x00")] {
			return true
		}
	}
	return false
}

// selectsTarget is kustomize's applyReplacement choice of targets: label and annotation
// selectors (and their rejects), then ids rejected, then ids selected.
func selectsTarget(r *resource.Resource, t *kustypes.TargetSelector, tsr *kustypes.TargetSelectorRegex, ids []resid.ResId) bool {
	if !matchesAnnoLabel(r, t.Select) {
		return false
	}
	for _, rej := range t.Reject {
		if rej != nil && (rej.AnnotationSelector != "" || rej.LabelSelector != "") && matchesAnnoLabel(r, rej) {
			return false
		}
	}
	return !tsr.RejectsAny(ids) && slices.ContainsFunc(ids, tsr.Selects)
}

// matchesAnnoLabel is kustomize's matchesAnnoAndLabelSelector; an invalid selector
// selects nothing (kustomize fails the build).
func matchesAnnoLabel(r *resource.Resource, s *kustypes.Selector) bool {
	a, err := r.MatchesAnnotationSelector(s.AnnotationSelector)
	if err != nil || !a {
		return false
	}
	l, err := r.MatchesLabelSelector(s.LabelSelector)
	return err == nil && l
}

// leafValues lists the scalar values under n (n itself when a scalar).
func leafValues(n *yaml.Node) []string {
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	var out []string
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			continue
		}
		out = append(out, leafValues(c)...)
	}
	return out
}

// targetCopies finds the fields of r that fields (a target fieldPath) leads to, as
// copyValueToTarget does (a value inside a JSON or YAML string first, then the path
// itself), and returns the Secret copies the build left there: for a scalar value, the
// piece setFieldValue wrote (delimiter and index) when it is still there; for a map or
// list value, each of its scalars.
func targetCopies(r *resource.Resource, fields []string, values []string, opts *kustypes.FieldOptions) []secretCopy {
	paths := nodePaths(r.YNode())
	if p, text, ok := structuredField(r, fields); ok {
		var out []secretCopy
		for _, v := range values {
			if v != "" && strings.Contains(text, v) {
				out = append(out, secretCopy{path: p, text: text, value: v, anywhere: true})
			}
		}
		return out
	}
	list, err := r.Pipe(&yaml.PathMatcher{Path: fields})
	if err != nil || list == nil {
		return nil
	}
	elems, err := list.Elements()
	if err != nil {
		return nil
	}
	var out []secretCopy
	for _, e := range elems {
		n := e.YNode()
		if len(values) == 1 && n.Kind == yaml.ScalarNode {
			if cp, ok := pieceCopy(n.Value, values[0], opts); ok {
				cp.path = paths[n]
				out = append(out, cp)
			}
			continue
		}
		out = append(out, leafCopies(n, paths, values)...)
	}
	return out
}

// structuredField is the first step of kustomize's setValueInStructuredData: a proper
// prefix of fields leading to a scalar whose text parses as YAML and in which the rest of
// fields finds a field. It returns the scalar's path and text.
func structuredField(r *resource.Resource, fields []string) ([]string, string, bool) {
	for i := 1; i < len(fields); i++ {
		n, err := r.Pipe(yaml.Lookup(fields[:i]...))
		if err != nil || n == nil || n.YNode().Kind != yaml.ScalarNode {
			continue
		}
		var doc yaml.Node
		if yaml.Unmarshal([]byte(n.YNode().Value), &doc) != nil {
			continue
		}
		list, err := yaml.NewRNode(&doc).Pipe(&yaml.PathMatcher{Path: fields[i:]})
		if err != nil || list == nil {
			return nil, "", false
		}
		if elems, err := list.Elements(); err != nil || len(elems) == 0 {
			return nil, "", false
		}
		return slices.Clone(fields[:i]), n.YNode().Value, true
	}
	return nil, "", false
}

// pieceCopy finds v in text where setFieldValue put it: the whole text, or with a
// delimiter the piece at index (a prefix for a negative index, a suffix past the last
// piece). False when it is not there (a later replacement overwrote it).
func pieceCopy(text, v string, opts *kustypes.FieldOptions) (secretCopy, bool) {
	cp := secretCopy{text: text, value: v}
	if opts == nil || opts.Delimiter == "" {
		cp.end = len(text)
		return cp, text == v
	}
	d := opts.Delimiter
	at := -1
	switch pieces := strings.Split(text, d); {
	case opts.Index < 0:
		if strings.HasPrefix(text, v) {
			at = 0
		}
	case opts.Index < len(pieces):
		off := 0
		for _, p := range pieces[:opts.Index] {
			off += len(p) + len(d)
		}
		if strings.HasPrefix(text[off:], v) {
			at = off
		}
	}
	if at < 0 && opts.Index >= 0 && strings.HasSuffix(text, v) {
		at = len(text) - len(v)
	}
	cp.start, cp.end = at, at+len(v)
	return cp, at >= 0 && v != ""
}

// leafCopies marks each scalar under n that holds one of values whole.
func leafCopies(n *yaml.Node, paths map[*yaml.Node][]string, values []string) []secretCopy {
	if n.Kind == yaml.ScalarNode {
		if n.Value != "" && slices.Contains(values, n.Value) {
			return []secretCopy{{path: paths[n], text: n.Value, end: len(n.Value), value: n.Value}}
		}
		return nil
	}
	var out []secretCopy
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			continue
		}
		out = append(out, leafCopies(c, paths, values)...)
	}
	return out
}

// nodePaths maps every node under root to its path (map keys, list indices).
func nodePaths(root *yaml.Node) map[*yaml.Node][]string {
	out := map[*yaml.Node][]string{}
	var walk func(n *yaml.Node, p []string)
	walk = func(n *yaml.Node, p []string) {
		out[n] = p
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], appendPath(p, n.Content[i].Value))
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, appendPath(p, strconv.Itoa(i)))
			}
		}
	}
	walk(root, nil)
	return out
}

// Mark adds to o.SecretFields the copies recorded for r (the resource o was made from),
// checked against o's body after substitution: a field whose text substitution left
// unchanged has exactly its Secret-derived bytes marked; one it changed has each
// occurrence of the value marked; one gone, or no longer holding the value, is not.
func (c *Copies) Mark(o *graph.Object, r *resource.Resource) {
	if c == nil || o.Body == nil {
		return
	}
	cps := c.byRes[r]
	if len(cps) == 0 {
		return
	}
	known := map[string]int{}
	for i, f := range o.SecretFields {
		known[fieldKey(f.Path, f.Key)] = i
	}
	for _, cp := range cps {
		v, ok := graph.ValueAt(o.Body.Object, cp.path)
		s, isString := v.(string)
		if !ok || !isString || len(cp.path) == 0 {
			continue
		}
		i, had := known[fieldKey(cp.path, false)]
		parts := []graph.TextPart{{Text: s}}
		if had {
			parts = o.SecretFields[i].Parts
		}
		if s == cp.text && !cp.anywhere {
			parts = markRange(parts, cp.start, cp.end)
		} else {
			parts = splitSecrets(parts, []string{cp.value})
		}
		switch {
		case had:
			o.SecretFields[i].Parts = parts
		case (graph.SecretField{Parts: parts}).HasSecret():
			known[fieldKey(cp.path, false)] = len(o.SecretFields)
			o.SecretFields = append(o.SecretFields, graph.SecretField{Path: slices.Clone(cp.path), Parts: parts})
		}
	}
	slices.SortFunc(o.SecretFields, func(a, b graph.SecretField) int {
		return strings.Compare(fieldKey(a.Path, a.Key), fieldKey(b.Path, b.Key))
	})
}

// markRange returns parts with the bytes [start, end) of their joined text made
// Secret-derived, literal parts split at the bounds.
func markRange(parts []graph.TextPart, start, end int) []graph.TextPart {
	var out []graph.TextPart
	off := 0
	for _, p := range parts {
		lo, hi := off, off+len(p.Text)
		off = hi
		if p.Secret || hi <= start || lo >= end {
			out = joinParts(out, p)
			continue
		}
		a, b := max(start, lo)-lo, min(end, hi)-lo
		out = joinParts(out, graph.TextPart{Text: p.Text[:a]}, graph.TextPart{Text: p.Text[a:b], Secret: true}, graph.TextPart{Text: p.Text[b:]})
	}
	return out
}
