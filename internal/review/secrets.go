package review

import (
	"encoding/base64"
	"encoding/json"
	"reflect"
	"slices"
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
// written) and stringData. Values under minSecretBytes are left out.
func SecretStrings(graphs ...*graph.Graph) []string {
	var out []string
	for _, g := range graphs {
		if g == nil {
			continue
		}
		for _, c := range g.Clusters {
			for _, ks := range c.Kustomizations {
				for _, o := range ks.Objects {
					out = append(out, o.SecretValues...)
					out = append(out, ownSecretValues(o)...)
				}
			}
		}
	}
	return longestFirst(out)
}

// bodySecrets is what redactSubstituted replaces in o's body: its SecretValues, and a
// Secret's own values, longest first, none under minSecretBytes. A shorter value replaced
// by value would cut every "1" or "a" of the object ("v<redacted>", "ConfigM<redacted>p");
// render does not record where it substituted, so such a value shows where it was
// substituted (docs/reliability.md "Secrets"); a Secret's own data is redacted whole.
func bodySecrets(o *graph.Object) []string {
	return longestFirst(append(ownSecretValues(o), o.SecretValues...))
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
// decoded) and stringData: they reappear in its metadata (last-applied-configuration, a
// label copied from a value), which the data redaction does not reach.
func ownSecretValues(o *graph.Object) []string {
	if o.ID.Group != "" || o.ID.Kind != "Secret" || o.Body == nil {
		return nil
	}
	var out []string
	data, _, _ := unstructured.NestedMap(o.Body.Object, "data")
	for _, v := range data {
		s, ok := v.(string)
		if !ok {
			continue
		}
		out = append(out, s)
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			out = append(out, string(b))
		}
	}
	str, _, _ := unstructured.NestedMap(o.Body.Object, "stringData")
	for _, v := range str {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
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
		pairs = append(pairs, v, "<redacted>")
		if q, err := json.Marshal(v); err == nil {
			if esc := string(q[1 : len(q)-1]); esc != v {
				pairs = append(pairs, esc, "<redacted>")
			}
		}
	}
	return strings.NewReplacer(pairs...)
}

// redactStrings replaces every secret in every exported string reached from v (a pointer
// to the report) by "<redacted>": names, messages, diffs and graphs alike, so that a
// Secret value that lands in an object's name (a Certificate named after
// ${SECRET_DOMAIN/./-}) is not shown by the finding that names it. It runs after the
// comparison, so objects still match by their real identity across base and head. Pointers,
// slices and maps are copied before they are changed: the report shares them with the
// rendered graphs, which a Cache keeps.
func redactStrings(v reflect.Value, secrets *strings.Replacer) {
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
		redactStrings(c.Elem(), secrets)
		v.Set(c)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				redactStrings(v.Field(i), secrets)
			}
		}
	case reflect.Slice:
		if v.IsNil() || !v.CanSet() {
			return
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		for i := range c.Len() {
			redactStrings(c.Index(i), secrets)
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
			redactStrings(k, secrets)
			redactStrings(e, secrets)
			c.SetMapIndex(k, e)
		}
		v.Set(c)
	case reflect.Interface:
		if v.IsNil() || !v.CanSet() {
			return
		}
		e := reflect.New(v.Elem().Type()).Elem()
		e.Set(v.Elem())
		redactStrings(e, secrets)
		v.Set(e)
	}
}
