package review

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// A Secret value that is a word (wordLike) and also stands as a literal word elsewhere (a
// namespace "default", a flag "true", a team name) is not redacted by value: replacing every occurrence of the
// word would tell the value to anyone who sees where "<redacted>" appears. Such a value is
// redacted at its positions only: a Secret's data, the fields substitution wrote from a
// Secret (render SecretFields, whatever their length), and a Secret's own labels and
// annotations, which copy its data (last-applied-configuration). docs/decisions.md.

// commonFinder finds which of a set of Secret-derived texts stand as a whole token (not
// next to a letter or digit) in the literal text of objects.
type commonFinder struct {
	texts []string
	// any replaces every text by nothing: a leaf it leaves unchanged holds none of them,
	// which spares the token check of each text for almost every leaf.
	any *strings.Replacer
	// pieces are the texts spared for standing inside a larger word: what a substitution
	// operator made of a Secret value (Object.DerivedValues, ${NS:0:4}), whose positions
	// render records (SecretFields). A Secret's own value is not, though it stand there:
	// a kustomize var or replacement may have copied it into a string with no recorded
	// position.
	pieces map[string]bool
}

// wordLike matches a text that reads as a word or words of a language ("default",
// "Secret", "kube-system", "PROD"), no digit in it: only such a value is worth nothing as a
// secret and much as an oracle. A value of another shape ("hunter2", base64 that a
// kustomize replacement copied into a ConfigMap) stays redacted by value wherever it
// stands, even where it also stands as literal text.
var wordLike = regexp.MustCompile(`^([A-Z]?[a-z]+|[A-Z]+)([-_.][a-z]+)*$`)

// newCommonFinder finds the word-like texts among texts (wordLike), pieces being the
// operator results among them (commonFinder.pieces); nil when there is none.
func newCommonFinder(texts []string, pieces map[string]bool) *commonFinder {
	texts = slices.DeleteFunc(slices.Clone(texts), func(t string) bool { return !wordLike.MatchString(t) })
	if len(texts) == 0 {
		return nil
	}
	pairs := make([]string, 0, 2*len(texts))
	for _, t := range texts {
		pairs = append(pairs, t, "")
	}
	return &commonFinder{texts: texts, any: strings.NewReplacer(pairs...), pieces: pieces}
}

// scan adds to found each text that stands as a token in o's literal text (every map key,
// number and boolean of its body and every string that names something, structural), and
// each piece (commonFinder.pieces) that stands inside a larger word of any of its literal
// text ("moni" of ${NS:0:4} in a Namespace "monitoring"): replacing it by value would cut
// that word ("<redacted>toring") and tell the piece. The fields render marked
// Secret-derived (SecretFields with a Secret-derived part) and, in a Secret, its data,
// stringData, labels and annotations are not literal text.
func (f *commonFinder) scan(o *graph.Object, found map[string]bool) {
	if f == nil || o.Body == nil {
		return
	}
	skip := map[string]bool{}
	for _, sf := range o.SecretFields {
		if sf.HasSecret() {
			skip[fieldPath(sf.Path, sf.Key)] = true
		}
	}
	secret := o.ID.Group == "" && o.ID.Kind == "Secret"
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				p := append(slices.Clip(path), k)
				if secret && ownDataPath(p) {
					continue
				}
				if !skip[fieldPath(p, true)] {
					f.leaf(k, true, found)
				}
				walk(c, p)
			}
		case []any:
			for i, c := range x {
				walk(c, append(slices.Clip(path), strconv.Itoa(i)))
			}
		case nil:
		case string:
			if !skip[fieldPath(path, false)] {
				f.leaf(x, structural(path), found)
			}
		default:
			if !skip[fieldPath(path, false)] {
				f.leaf(leafText(x), true, found)
			}
		}
	}
	walk(o.Body.Object, nil)
}

// structural reports whether a string at path names something (kind, apiVersion, a name
// or namespace field: metadata.namespace, serviceAccountName, targetNamespace): the words
// every reader sees, whose masking tells a value. A data value is not: a kustomize
// replacement copies a Secret's value there, and that copy stays redacted by value.
func structural(path []string) bool {
	if len(path) == 0 {
		return false
	}
	last := path[len(path)-1]
	if last == "kind" || last == "apiVersion" {
		return true
	}
	l := strings.ToLower(last)
	return strings.HasSuffix(l, "name") || strings.HasSuffix(l, "namespace")
}

// leaf adds to found each piece standing inside a larger word of s, and when token is true
// each text standing as a token in s.
func (f *commonFinder) leaf(s string, token bool, found map[string]bool) {
	if len(f.any.Replace(s)) == len(s) {
		return
	}
	for _, t := range f.texts {
		if !found[t] && (token && hasToken(s, t) || f.pieces[t] && inWord(s, t)) {
			found[t] = true
		}
	}
}

// inWord reports whether t occurs in s next to a letter or digit on either side: as a
// piece of a larger word.
func inWord(s, t string) bool {
	return occurs(s, t, func(before, after bool) bool { return before || after })
}

// ownDataPath reports whether path leads to a part of a Secret that holds or copies its
// values: data, stringData, metadata.labels, metadata.annotations.
func ownDataPath(path []string) bool {
	switch {
	case len(path) == 1:
		return path[0] == "data" || path[0] == "stringData"
	case len(path) == 2 && path[0] == "metadata":
		return path[1] == "labels" || path[1] == "annotations"
	}
	return false
}

// fieldPath names a field's path, and whether it is the key, as one string.
func fieldPath(path []string, key bool) string {
	return strings.Join(path, "\x00") + "\x00" + strconv.FormatBool(key)
}

// leafText is a scalar as YAML writes it (strings as they are).
func leafText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return graph.LeafStrings(v)[0]
}

// hasToken reports whether t occurs in s with no letter or digit on either side.
func hasToken(s, t string) bool {
	return occurs(s, t, func(before, after bool) bool { return !before && !after })
}

// occurs reports whether t occurs in s at a place where ok holds of whether a letter or
// digit stands just before it and just after it.
func occurs(s, t string, ok func(before, after bool) bool) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], t)
		if j < 0 {
			return false
		}
		at := i + j
		if ok(at > 0 && isWordByte(s[at-1]), at+len(t) < len(s) && isWordByte(s[at+len(t)])) {
			return true
		}
		i = at + 1
	}
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// Common is the set of a review's Secret-derived texts (SecretStrings, and the whole
// texts of fields substitution or a replacement wrote from a Secret) that are common
// words: they stand as a word in the literal text of some object of the review's graphs
// (commonFinder.scan). Each is redacted at its positions only, in every object's diff,
// in build and in every text of the report, whether or not the object at hand holds the
// word itself: replacing it by value in one object while another shows it would tell it.
type Common map[string]bool

// CommonValues returns the Common texts of the graphs (base and head of a review, or the
// one graph build shows).
func CommonValues(graphs ...*graph.Graph) Common {
	texts := append(SecretStrings(graphs...), secretFieldTexts(graphs...)...)
	return commonSecrets(longestFirst(texts), graphs...)
}

// commonSecrets returns which of texts stand as a token in the literal text of any object
// of the graphs (commonFinder.scan).
func commonSecrets(texts []string, graphs ...*graph.Graph) map[string]bool {
	found := map[string]bool{}
	f := newCommonFinder(texts, derivedPieces(graphs...))
	if f == nil {
		return found
	}
	eachObject(graphs, func(o *graph.Object) { f.scan(o, found) })
	return found
}

// derivedPieces returns the operator results of the objects of the graphs
// (Object.DerivedValues) that are no Secret's own value and no variable's value anywhere.
func derivedPieces(graphs ...*graph.Graph) map[string]bool {
	var objs []*graph.Object
	eachObject(graphs, func(o *graph.Object) { objs = append(objs, o) })
	return piecesOf(objs...)
}

// piecesOf returns the DerivedValues of objs that are no Secret's own value
// (ownSecretValues) and no other SecretValue of objs.
func piecesOf(objs ...*graph.Object) map[string]bool {
	out, raw := map[string]bool{}, map[string]bool{}
	for _, o := range objs {
		for _, v := range ownSecretValues(o) {
			raw[v] = true
		}
		for _, v := range o.SecretValues {
			if !slices.Contains(o.DerivedValues, v) {
				raw[v] = true
			}
		}
	}
	for _, o := range objs {
		for _, v := range o.DerivedValues {
			if !raw[v] {
				out[v] = true
			}
		}
	}
	return out
}
