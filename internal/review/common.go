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
}

// wordLike matches a text that reads as a word or words of a language ("default",
// "Secret", "kube-system", "PROD"), no digit in it: only such a value is worth nothing as a
// secret and much as an oracle. A value of another shape ("hunter2", base64 that a
// kustomize replacement copied into a ConfigMap) stays redacted by value wherever it
// stands, even where it also stands as literal text.
var wordLike = regexp.MustCompile(`^([A-Z]?[a-z]+|[A-Z]+)([-_.][a-z]+)*$`)

// newCommonFinder finds the word-like texts among texts (wordLike); nil when there is none.
func newCommonFinder(texts []string) *commonFinder {
	texts = slices.DeleteFunc(slices.Clone(texts), func(t string) bool { return !wordLike.MatchString(t) })
	if len(texts) == 0 {
		return nil
	}
	pairs := make([]string, 0, 2*len(texts))
	for _, t := range texts {
		pairs = append(pairs, t, "")
	}
	return &commonFinder{texts: texts, any: strings.NewReplacer(pairs...)}
}

// scan adds to found each text that stands as a token in o's literal text: every map key,
// number and boolean of its body and every string that names something (structural),
// except the fields substitution wrote from a Secret (SecretFields with a Secret-derived
// part) and, in a Secret, its data, stringData, labels and annotations.
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
					f.leaf(k, found)
				}
				walk(c, p)
			}
		case []any:
			for i, c := range x {
				walk(c, append(slices.Clip(path), strconv.Itoa(i)))
			}
		case nil:
		case string:
			if structural(path) && !skip[fieldPath(path, false)] {
				f.leaf(x, found)
			}
		default:
			if !skip[fieldPath(path, false)] {
				f.leaf(leafText(x), found)
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

// leaf adds to found each text standing as a token in s.
func (f *commonFinder) leaf(s string, found map[string]bool) {
	if len(f.any.Replace(s)) == len(s) {
		return
	}
	for _, t := range f.texts {
		if !found[t] && hasToken(s, t) {
			found[t] = true
		}
	}
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
	return leafStrings(v)[0]
}

// hasToken reports whether t occurs in s with no letter or digit on either side.
func hasToken(s, t string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], t)
		if j < 0 {
			return false
		}
		at := i + j
		if (at == 0 || !isWordByte(s[at-1])) && (at+len(t) == len(s) || !isWordByte(s[at+len(t)])) {
			return true
		}
		i = at + 1
	}
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// commonSecrets returns which of texts stand as a token in the literal text of any object
// of the graphs (commonFinder.scan).
func commonSecrets(texts []string, graphs ...*graph.Graph) map[string]bool {
	found := map[string]bool{}
	f := newCommonFinder(texts)
	if f == nil {
		return found
	}
	for _, g := range graphs {
		if g == nil {
			continue
		}
		for _, c := range g.Clusters {
			for _, ks := range c.Kustomizations {
				for _, o := range ks.Objects {
					f.scan(o, found)
				}
			}
		}
	}
	return found
}
