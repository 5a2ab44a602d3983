package graph

import (
	"slices"
	"strings"
)

// MaskSecretParts returns msg, a message about one object, with the Secret-derived text
// of fields (that object's SecretFields) replaced by "<redacted>" wherever it stands as a
// whole token or a quoted value, whatever its length: each field's whole text (by its
// masked form) and each Secret-derived part. Messages quote field values
// (`spec.retryInterval: "zq" is not a duration`, fluxschema), which the report-wide
// redaction by value does not reach under 4 bytes. A part of digits only is masked where
// it is quoted only: as a token it would mask line numbers and counts.
func MaskSecretParts(msg string, fields []SecretField) string {
	var pairs []pair
	for _, f := range fields {
		if masked := f.Masked(func(string) string { return "<redacted>" }); masked != f.Text() {
			pairs = append(pairs, pair{old: f.Text(), new: masked})
		}
		for _, p := range f.Parts {
			if p.Secret && p.Text != "" {
				pairs = append(pairs, pair{old: p.Text, new: "<redacted>"})
			}
		}
	}
	return maskPairs(msg, pairs)
}

// pair is a text and what shows in its place; anywhere: wherever it stands, not only
// as a token or quoted value.
type pair struct {
	old, new string
	anywhere bool
}

// MaskValues returns msg, an error of a build, with each of values (the Secret values of
// the build's inputs) replaced by "<redacted>": each value, its trimmed form, each line of
// a multi-line value and its lines joined by single spaces (as kustomize's YAML errors
// re-flow a node), whatever their length; a text of 4 bytes or more wherever it stands,
// a shorter one as a whole token or a quoted value (standsAlone).
func MaskValues(msg string, values []string) string {
	var pairs []pair
	add := func(v string) {
		if v != "" {
			pairs = append(pairs, pair{old: v, new: "<redacted>", anywhere: len(v) >= 4})
		}
	}
	for _, v := range values {
		add(v)
		add(strings.TrimSpace(v))
		add(strings.Join(strings.Fields(v), " "))
		for _, line := range strings.Split(v, "\n") {
			add(strings.TrimSpace(line))
		}
	}
	return maskPairs(msg, pairs)
}

// maskPairs replaces in msg, at each position, the longest pair that stands there.
func maskPairs(msg string, pairs []pair) string {
	if len(pairs) == 0 {
		return msg
	}
	slices.SortStableFunc(pairs, func(a, b pair) int { return len(b.old) - len(a.old) })
	var b strings.Builder
	for i := 0; i < len(msg); {
		n, repl := 0, ""
		for _, p := range pairs {
			if strings.HasPrefix(msg[i:], p.old) && (p.anywhere || standsAlone(msg, i, i+len(p.old))) {
				n, repl = len(p.old), p.new
				break
			}
		}
		if n == 0 {
			b.WriteByte(msg[i])
			i++
			continue
		}
		b.WriteString(repl)
		i += n
	}
	return b.String()
}

// standsAlone reports whether msg[i:j] is quoted ("…" or '…') or a whole token: no name
// byte (letter, digit, '_', '-') on either side, nor a '.' joining it to one. A token of
// digits only must be quoted.
func standsAlone(msg string, i, j int) bool {
	if i > 0 && j < len(msg) && (msg[i-1] == '"' && msg[j] == '"' || msg[i-1] == '\'' && msg[j] == '\'') {
		return true
	}
	if strings.Trim(msg[i:j], "0123456789") == "" {
		return false
	}
	return tokenBoundary(msg, i, true) && tokenBoundary(msg, j, false)
}

// tokenBoundary reports whether a token may start (start) or end at msg[k].
func tokenBoundary(msg string, k int, start bool) bool {
	if start {
		if k == 0 {
			return true
		}
		c := msg[k-1]
		return !nameByte(c) && !(c == '.' && k >= 2 && nameByte(msg[k-2]))
	}
	if k == len(msg) {
		return true
	}
	c := msg[k]
	return !nameByte(c) && !(c == '.' && k+1 < len(msg) && nameByte(msg[k+1]))
}

// nameByte reports whether c continues a name: a letter, digit, '_' or '-'.
func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// goDumpPrefixes introduce a Go-syntax dump (%#v) of a parsed YAML node in an error:
// yaml.v2's decode.go (*decoder).mapping (go.yaml.in/yaml/v2) fail with "invalid map key: %#v"
// for a key that is a map or a list, which sigs.k8s.io/yaml's YAMLToJSON (Flux's
// envsubst, kustomize's reader) passes on. The dump quotes the strings the node parses
// into, pieces of the value that whole-value masking does not find.
var goDumpPrefixes = []string{"invalid map key: "}

// WithholdGoDumps returns msg with each Go-syntax dump after a goDumpPrefixes phrase, up
// to the end of its line, replaced by "<redacted>". Callers use it where the error text
// comes from a Secret's manifest or from substitution of Secret variables.
func WithholdGoDumps(msg string) string {
	for _, p := range goDumpPrefixes {
		var b strings.Builder
		for {
			i := strings.Index(msg, p)
			if i < 0 {
				b.WriteString(msg)
				break
			}
			b.WriteString(msg[:i+len(p)] + "<redacted>")
			msg = msg[i+len(p):]
			if j := strings.IndexByte(msg, '\n'); j >= 0 {
				msg = msg[j:]
			} else {
				msg = ""
			}
		}
		msg = b.String()
	}
	return msg
}
