package graph

import (
	"encoding/base64"
	"fmt"
)

// SecretDataValues lists the values of a Secret's data (each base64 string as written,
// then decoded when it decodes) and of its stringData, in that order, from the fields as
// decoded from YAML or JSON (any shape: see LeafStrings). A Secret's values reappear in
// texts that the data redaction does not reach (its own metadata, a build error quoting
// the node kustomize fails at); both the render and the review mask them.
func SecretDataValues(data, stringData any) []string {
	var out []string
	for _, s := range LeafStrings(data) {
		out = append(out, s)
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			out = append(out, string(b))
		}
	}
	return append(out, LeafStrings(stringData)...)
}

// LeafStrings returns the strings, and numbers and booleans as written (fmt.Sprint),
// anywhere in v, a value decoded from YAML or JSON; nil gives none. A Secret's data of any
// shape counts: a malformed Secret with nested maps, lists or a scalar is refused by the
// API server, but its values are still not to be shown.
func LeafStrings(v any) []string {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return []string{x}
	case map[string]any:
		var out []string
		for _, e := range x {
			out = append(out, LeafStrings(e)...)
		}
		return out
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, LeafStrings(e)...)
		}
		return out
	}
	return []string{fmt.Sprint(v)}
}
