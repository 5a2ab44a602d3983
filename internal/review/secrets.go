package review

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// minSecretBytes is the shortest Secret-derived value redacted wherever it occurs (the
// same bound as render's for operator results): a shorter one (a port, "true") matches
// ordinary text everywhere. It is still redacted where it stands in a Secret's data.
const minSecretBytes = 4

// SecretStrings returns, longest first and without repeats, every Secret-derived string of
// the graphs that no output may show: each object's SecretValues (postBuild variables read
// from a substituteFrom Secret, and what bash-style operators make of them, render
// secretDerived) and each value of each Secret object's data (decoded, and base64 as
// written) and stringData, and each line of a multi-line one (secretLines). Values under
// minSecretBytes are left out.
func SecretStrings(graphs ...*graph.Graph) []string {
	var out []string
	eachObject(graphs, func(o *graph.Object) {
		out = append(out, o.SecretValues...)
		out = append(out, ownSecretValues(o)...)
		out = append(out, chartVariants(o)...)
	})
	for _, v := range out {
		out = append(out, secretLines(v)...)
	}
	return longestFirst(out)
}

// chartVariants returns, for a Secret a chart renders (o.HelmRelease set), what the chart's
// other templates most often make of its values, which render cannot follow: the value
// comes from the chart's own defaults or is written in the template, not from a Secret
// render knows, so no placeholder stands in for it. Each value's sprig upper, lower,
// b64enc and sha256sum (Masterminds/sprig strings.go, crypto.go). Other
// transformations (trunc, substr, replace, printf around it is kept: the value inside
// is redacted) are not covered (docs/reliability.md).
func chartVariants(o *graph.Object) []string {
	if o.HelmRelease == "" {
		return nil
	}
	var out []string
	for _, v := range ownSecretValues(o) {
		out = append(out, graph.ValueForms(v, graph.Upper, graph.Lower, graph.Base64, graph.SHA256)...)
	}
	return out
}

// secretLines returns the lines of a multi-line value that are key material
// (graph.KeyLines): another object may hold a line of the file alone, and a text splits a
// multi-line string into its lines (a YAML block scalar), so each is redacted by value too.
func secretLines(v string) []string { return graph.KeyLines(v) }

// bodySecrets is what redactSubstituted replaces in o's body: its SecretValues, and a
// Secret's own values, longest first, none under minSecretBytes. A shorter value replaced
// by value would cut every "1" or "a" of the object ("v<redacted>", "ConfigM<redacted>p");
// render does not record where it substituted, so such a value shows where it was
// substituted (docs/reliability.md "Secrets"); a Secret's own data is redacted whole.
//
// A common value (Common: a word that stands as a word in the literal text of any object
// of the review) is left out: its positions are masked (maskFields, redact,
// redactOwnMetadata) and replacing it elsewhere would tell it. With common nil (one
// object on its own), the common values are those of o's own literal text.
func bodySecrets(o *graph.Object, common Common) []string {
	all := longestFirst(append(ownSecretValues(o), o.SecretValues...))
	if common == nil {
		common = Common{}
		newCommonFinder(all, piecesOf(o)).scan(o, common)
	}
	return slices.DeleteFunc(all, func(s string) bool { return common[s] })
}

// lastApplied is the annotation kubectl apply keeps the whole applied object in.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// redactLastApplied returns s, a last-applied-configuration of a Secret, with the values
// of its data and stringData replaced as the Secret's own are (redact), at their position:
// the rest of it (kind, namespace) keeps its text even when a value is the same word.
// False when s is not such a JSON object: the caller then replaces the Secret's values in
// it by value.
func redactLastApplied(s string, other *graph.Object, head bool) (string, bool) {
	var obj map[string]any
	if json.Unmarshal([]byte(s), &obj) != nil {
		return s, false
	}
	theirs := &unstructured.Unstructured{Object: map[string]any{}}
	if other != nil && other.Body != nil {
		if t, ok := other.Body.GetAnnotations()[lastApplied]; ok {
			_ = json.Unmarshal([]byte(t), &theirs.Object)
		}
	}
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // "<redacted>", as everywhere else
	if enc.Encode(redact(&unstructured.Unstructured{Object: obj}, theirs, head).Object) != nil {
		return s, false
	}
	return strings.TrimSuffix(out.String(), "\n"), true
}

// redactOwnMetadata replaces, in a Secret's labels and annotations, each of its own values
// (ownSecretValues) by "<redacted>" ("<redacted, changed>" on the head side where other
// does not hold it), common words included: they copy its data
// (last-applied-configuration).
func redactOwnMetadata(u *unstructured.Unstructured, o, other *graph.Object, head bool) *unstructured.Unstructured {
	mine := longestFirst(ownSecretValues(o))
	meta, _ := u.Object["metadata"].(map[string]any)
	if len(mine) == 0 || meta == nil || meta["labels"] == nil && meta["annotations"] == nil {
		return u
	}
	var theirs []string
	if other != nil {
		theirs = longestFirst(ownSecretValues(other))
	}
	c := u.DeepCopy()
	meta = c.Object["metadata"].(map[string]any)
	// From o's own body: the value replacement before this one (bodySecrets) knows only
	// o's words, and would cut a value that is a word elsewhere out of kind or namespace.
	applied, parsed := "", false
	if s, ok := o.Body.GetAnnotations()[lastApplied]; ok {
		applied, parsed = redactLastApplied(s, other, head)
	}
	for _, k := range []string{"labels", "annotations"} {
		if m, ok := meta[k].(map[string]any); ok {
			part := redactSubstituted(&unstructured.Unstructured{Object: m}, mine, theirs, head)
			meta[k] = part.Object
		}
	}
	if anns, ok := meta["annotations"].(map[string]any); ok && parsed {
		anns[lastApplied] = applied
	}
	return c
}

// longestFirst drops values under minSecretBytes and repeats, and sorts the rest longest
// first: a value that contains another is replaced before it.
func longestFirst(values []string) []string {
	values = slices.DeleteFunc(values, func(s string) bool { return len(s) < minSecretBytes })
	slices.SortFunc(values, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(values)
}

// ownSecretValues lists the values of a Secret object's data (base64 as written, and
// decoded) and stringData (graph.SecretDataValues): they reappear in its metadata
// (last-applied-configuration, a label copied from a value), which the data redaction does
// not reach.
func ownSecretValues(o *graph.Object) []string {
	if o.ID.Group != "" || o.ID.Kind != "Secret" || o.Body == nil {
		return nil
	}
	return graph.SecretDataValues(o.Body.Object["data"], o.Body.Object["stringData"])
}

// RedactText replaces in s every secret (longest first, as SecretStrings returns them) by
// "<redacted>", as written and as JSON escapes it, for outputs rendered as text (build,
// graph).
func RedactText(s string, secrets []string) string {
	if len(secrets) == 0 {
		return s
	}
	return redactor(secrets).Replace(s)
}

// redactor replaces each secret, and its JSON-escaped form, by "<redacted>"; secrets are
// longest first, which strings.Replacer tries in order at each position.
func redactor(secrets []string) *strings.Replacer {
	var pairs []string
	for _, v := range secrets {
		for _, f := range graph.ValueForms(v, graph.Plain, graph.JSONEscaped) {
			pairs = append(pairs, f, "<redacted>")
		}
	}
	return strings.NewReplacer(pairs...)
}

// masker is a value whose unexported fields are part of an identity an output shows or
// hashes (rules.Finding's Key): redactStrings has it rewrite them.
type masker interface{ Mask(func(string) string) }

// redactStrings replaces every secret in every exported string reached from v (a pointer
// to the report) by "<redacted>": names, messages, diffs and graphs alike, so that a
// Secret value that lands in an object's name (a Certificate named after
// ${SECRET_DOMAIN/./-}) is not shown by the finding that names it. It runs after the
// comparison, so objects still match by their real identity across base and head; an
// identity in ids (named from a Secret, redactionOf) is replaced by its masked one first,
// whatever the length of the value. Pointers,
// slices and maps are copied before they are changed: the report shares them with the
// rendered graphs, which a Cache keeps.
func redactStrings(v reflect.Value, secrets interface{ Replace(string) string }, ids map[graph.ObjectID]graph.ObjectID) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			if s := secrets.Replace(v.String()); s != v.String() {
				v.SetString(s)
			}
		}
	case reflect.Pointer:
		if v.IsNil() || !v.CanSet() {
			return
		}
		c := reflect.New(v.Elem().Type())
		c.Elem().Set(v.Elem())
		redactStrings(c.Elem(), secrets, ids)
		v.Set(c)
	case reflect.Struct:
		if id, ok := v.Interface().(graph.ObjectID); ok && v.CanSet() {
			if m, ok := ids[id]; ok {
				v.Set(reflect.ValueOf(m))
			}
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				redactStrings(v.Field(i), secrets, ids)
			}
		}
		if v.CanAddr() {
			if m, ok := v.Addr().Interface().(masker); ok {
				m.Mask(secrets.Replace)
			}
		}
	case reflect.Slice:
		if v.IsNil() || !v.CanSet() {
			return
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		for i := range c.Len() {
			redactStrings(c.Index(i), secrets, ids)
		}
		v.Set(c)
	case reflect.Map:
		if v.IsNil() || !v.CanSet() {
			return
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k, e := reflect.New(it.Key().Type()).Elem(), reflect.New(it.Value().Type()).Elem()
			k.Set(it.Key())
			e.Set(it.Value())
			redactStrings(k, secrets, ids)
			redactStrings(e, secrets, ids)
			c.SetMapIndex(k, e)
		}
		v.Set(c)
	case reflect.Interface:
		if v.IsNil() || !v.CanSet() {
			return
		}
		e := reflect.New(v.Elem().Type()).Elem()
		e.Set(v.Elem())
		redactStrings(e, secrets, ids)
		v.Set(e)
	}
}

// maskFields returns u with each of mine (the fields substitution wrote from a Secret
// variable, render SecretFields) written as its text with every Secret-derived part
// replaced by "<redacted>", or on the head side by "<redacted, changed>" when theirs (the
// other side's fields) holds no field of the same path and parts: redaction at the
// position, whatever the length of the value. A key is renamed; a field no longer at its
// path is left to the redaction by value. u is not changed.
//
// orig is the object as rendered, u that object with earlier redactions (a Secret's data,
// SOPS values): a value u no longer holds as orig does was replaced by one of them, which
// decided whether it changed on the rendered values of both sides, and is left as it is
// (its marker stays; the literal parts of a Secret's value are not shown).
func maskFields(u, orig *unstructured.Unstructured, mine, theirs []graph.SecretField, head bool) *unstructured.Unstructured {
	if len(mine) == 0 {
		return u
	}
	c := u.DeepCopy()
	// Values first, then keys deepest first: a renamed key no longer leads to what is
	// under it.
	fields := slices.Clone(mine)
	slices.SortStableFunc(fields, func(a, b graph.SecretField) int {
		if a.Key != b.Key {
			if a.Key {
				return 1
			}
			return -1
		}
		return len(b.Path) - len(a.Path)
	})
	for _, f := range fields {
		marker := "<redacted>"
		if head && !slices.ContainsFunc(theirs, func(t graph.SecretField) bool {
			return t.Key == f.Key && reflect.DeepEqual(t.Path, f.Path) && reflect.DeepEqual(t.Parts, f.Parts)
		}) {
			marker = "<redacted, changed>"
		}
		masked := f.Masked(func(string) string { return marker })
		parent, ok := graph.ValueAt(c.Object, f.Path[:len(f.Path)-1])
		if !ok {
			continue
		}
		last := f.Path[len(f.Path)-1]
		switch p := parent.(type) {
		case map[string]any:
			v, ok := p[last]
			switch {
			case !ok:
			case !f.Key && replacedBefore(v, orig, f.Path):
			case f.Key:
				delete(p, last)
				p[distinctKey(p, masked)] = v
			default:
				p[last] = masked
			}
		case []any:
			if i, err := strconv.Atoi(last); err == nil && i >= 0 && i < len(p) && !f.Key && !replacedBefore(p[i], orig, f.Path) {
				p[i] = masked
			}
		}
	}
	return c
}

// replacedBefore reports whether v, the value at path in the object maskFields masks, is
// not orig's value there: an earlier redaction replaced it. Values are masked before any
// key is renamed, so path still leads through orig's keys.
func replacedBefore(v any, orig *unstructured.Unstructured, path []string) bool {
	if orig == nil {
		return false
	}
	was, ok := graph.ValueAt(orig.Object, path)
	return ok && !reflect.DeepEqual(was, v)
}

// maskedID returns o's identity with the Secret-derived parts of its name and namespace
// replaced by "<redacted>" (its SecretFields at metadata.name and metadata.namespace), and
// whether there were any.
func maskedID(o *graph.Object) (graph.ObjectID, bool) {
	id, changed := o.ID, false
	for _, f := range o.SecretFields {
		if f.Key || len(f.Path) != 2 || f.Path[0] != "metadata" {
			continue
		}
		masked := f.Masked(func(string) string { return "<redacted>" })
		switch {
		case f.Path[1] == "name" && f.Text() == id.Name:
			id.Name, changed = masked, true
		case f.Path[1] == "namespace" && f.Text() == id.Namespace:
			id.Namespace, changed = masked, true
		}
	}
	return id, changed
}

// redaction is what the report-wide redaction replaces: pairs of a text and what it
// shows (longest text first), identities of objects named from a Secret, and tokens:
// Secret-derived parts under minSecretBytes of reference fields (identityField).
type redaction struct {
	pairs  []string
	ids    map[graph.ObjectID]graph.ObjectID
	tokens []string
}

// referenceKeys are the last path elements of the fields that name something: a
// Kustomization's or HelmRelease's dependsOn, sourceRef, targetNamespace, path, chart,
// releaseName, storageNamespace, health checks, any object's name and namespace. Rules
// quote their values in messages and suggestions in forms a positional mask cannot
// follow ("default/jw", "charts/jw", `namespaces "jw" not found`).
var referenceKeys = map[string]bool{"name": true, "namespace": true, "targetNamespace": true, "path": true,
	"chart": true, "releaseName": true, "storageNamespace": true, "serviceAccountName": true}

// identityField reports whether f is a reference field (referenceKeys) of o: in the
// spec of a Flux Kustomization or HelmRelease, or o's metadata.name or namespace.
func identityField(o *graph.Object, f graph.SecretField) bool {
	if f.Key || len(f.Path) < 2 || !referenceKeys[f.Path[len(f.Path)-1]] {
		return false
	}
	if f.Path[0] == "metadata" {
		return len(f.Path) == 2
	}
	g := o.ID.Group
	return f.Path[0] == "spec" && (g == "kustomize.toolkit.fluxcd.io" || g == "helm.toolkit.fluxcd.io")
}

// shortTokens lists the Secret-derived parts under minSecretBytes of f, except numbers
// (they would mask line numbers and counts): each is redacted where it stands as a whole
// token (tokenRedactor).
func shortTokens(f graph.SecretField) []string {
	var out []string
	for _, p := range f.Parts {
		if p.Secret && p.Text != "" && len(p.Text) < minSecretBytes && strings.Trim(p.Text, "0123456789") != "" {
			out = append(out, p.Text)
		}
	}
	return out
}

// textRedactor replaces the pairs of a redaction, then each of its tokens (longest
// first) where it stands whole (tokenStart, tokenEnd): "jw" is masked in "default/jw",
// "charts/jw.", `"jw" not found` but not in "jwt", "a-jw" or "jw.yaml".
type textRedactor struct {
	pairs  *strings.Replacer
	tokens []string
}

// Replace returns s redacted.
func (t textRedactor) Replace(s string) string {
	s = t.pairs.Replace(s)
	if len(t.tokens) == 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if n := t.tokenAt(s, i); n > 0 {
			b.WriteString("<redacted>")
			i += n
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// tokenAt returns the length of the longest token that stands whole at s[i:], or 0.
func (t textRedactor) tokenAt(s string, i int) int {
	if !tokenStart(s, i) {
		return 0
	}
	for _, tok := range t.tokens {
		if strings.HasPrefix(s[i:], tok) && tokenEnd(s, i+len(tok)) {
			return len(tok)
		}
	}
	return 0
}

// wordByte reports whether c continues a name: a letter, digit, '_' or '-' (the
// characters of a Kubernetes name or a path element besides '.').
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// tokenStart reports whether a word may start at s[i]: nothing before it, or a byte
// that is no wordByte, and no '.' that follows one ("x.jw" is one name).
func tokenStart(s string, i int) bool {
	if i == 0 {
		return true
	}
	c := s[i-1]
	return !wordByte(c) && !(c == '.' && i >= 2 && wordByte(s[i-2]))
}

// tokenEnd reports whether a word may end before s[j]: nothing after it, or a byte that
// is no wordByte, and no '.' that a wordByte follows ("jw.yaml" is one name, "jw." at the
// end of a sentence is not).
func tokenEnd(s string, j int) bool {
	if j == len(s) {
		return true
	}
	c := s[j]
	return !wordByte(c) && !(c == '.' && j+1 < len(s) && wordByte(s[j+1]))
}

// redactionOf collects from the graphs every Secret-derived value (SecretStrings), and
// for each field substitution wrote from a Secret its whole text with the Secret-derived
// parts masked ("ab-app" shows as "<redacted>-app" though "ab" is too short to replace
// everywhere), and each identity named from a Secret, as text too
// ("ConfigMap/default/ab" shows as "ConfigMap/default/<redacted>"). Texts under
// minSecretBytes are left out; identities are matched whole.
func redactionOf(graphs ...*graph.Graph) redaction {
	return redactionWith(CommonValues(graphs...), graphs...)
}

// redactionWith is redactionOf with the review's common values already found.
func redactionWith(common Common, graphs ...*graph.Graph) redaction {
	r := redaction{ids: map[graph.ObjectID]graph.ObjectID{}}
	texts := map[string]string{}
	for _, v := range SecretStrings(graphs...) {
		if !common[v] {
			texts[v] = "<redacted>"
		}
	}
	eachObject(graphs, func(o *graph.Object) {
		for _, f := range o.SecretFields {
			if t := f.Text(); len(t) >= minSecretBytes && texts[t] == "" && !common[t] {
				texts[t] = f.Masked(func(string) string { return "<redacted>" })
			}
			if identityField(o, f) {
				r.tokens = append(r.tokens, shortTokens(f)...)
			}
		}
		if id, ok := maskedID(o); ok {
			r.ids[o.ID] = id
			texts[o.ID.String()] = id.String()
			texts[o.ID.Namespace+"/"+o.ID.Name] = id.Namespace + "/" + id.Name
		}
	})
	olds := make([]string, 0, len(texts))
	for t := range texts {
		olds = append(olds, t)
	}
	olds = longestFirst(olds)
	for _, t := range olds {
		for _, f := range graph.ValueForms(t, graph.Plain, graph.JSONEscaped) {
			r.pairs = append(r.pairs, f, texts[t])
		}
	}
	return r
}

// secretFieldTexts lists the whole texts of the fields substitution wrote from a Secret,
// in every object of the graphs.
func secretFieldTexts(graphs ...*graph.Graph) []string {
	var out []string
	eachObject(graphs, func(o *graph.Object) {
		for _, f := range o.SecretFields {
			out = append(out, f.Text())
		}
	})
	return out
}

// replacer replaces each text of r by what it shows, longest first (strings.Replacer
// tries its pairs in order at each position), then each token of r where it stands whole.
func (r redaction) replacer() textRedactor {
	t := textRedactor{pairs: strings.NewReplacer(r.pairs...)}
	if len(r.tokens) > 0 {
		t.tokens = slices.Clone(r.tokens)
		slices.SortFunc(t.tokens, func(a, b string) int {
			if len(a) != len(b) {
				return len(b) - len(a)
			}
			return strings.Compare(a, b) // equal tokens side by side, for Compact
		})
		t.tokens = slices.Compact(t.tokens)
	}
	return t
}

// RedactGraphText is RedactText for every Secret-derived text of the graphs: values by
// value, and fields substitution wrote from a Secret and identities named from one by
// their masked text (redactionOf), for outputs rendered as text (build, graph).
func RedactGraphText(s string, graphs ...*graph.Graph) string {
	return GraphTextRedactor(graphs...)(s)
}

// GraphTextRedactor is RedactGraphText of the graphs as a function, its redaction built
// once (redactionOf walks every object): for the several texts one render prints.
func GraphTextRedactor(graphs ...*graph.Graph) func(string) string {
	r := redactionOf(graphs...)
	if len(r.pairs) == 0 && len(r.tokens) == 0 {
		return func(s string) string { return s }
	}
	return r.replacer().Replace
}

// eachObject calls fn for every object of every Kustomization of every cluster of the
// graphs, skipping nil graphs.
func eachObject(graphs []*graph.Graph, fn func(*graph.Object)) {
	for _, g := range graphs {
		if g == nil {
			continue
		}
		for _, c := range g.Clusters {
			for _, ks := range c.Kustomizations {
				for _, o := range ks.Objects {
					fn(o)
				}
			}
		}
	}
}
