package graph

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
)

// Form is one way a text shows a Secret value: what the render replaces in a chart's files
// and what the review and build errors mask. One list, so that every redaction follows the
// same forms.
type Form int

const (
	// Plain is the value as written.
	Plain Form = iota
	// Base64 is standard base64 (RFC 4648 with padding): a Secret's data, kustomize's
	// secretGenerator (api/kv), sprig's b64enc (Masterminds/sprig strings.go base64encode).
	Base64
	// JSONEscaped is the value inside a JSON string as encoding/json writes it (quotes,
	// backslashes, control bytes and <, >, & escaped): kubectl's last-applied-configuration
	// annotation (k8s.io/kubectl pkg/util/apply.go GetModifiedConfiguration marshals the
	// object with encoding/json), Helm's toJson, the report's JSON.
	JSONEscaped
	// Upper and Lower are sprig's upper and lower (strings.ToUpper, strings.ToLower).
	Upper
	Lower
	// SHA256 is sprig's sha256sum: the lower-case hex SHA-256 of the value.
	SHA256
)

// Of returns v in form f.
func (f Form) Of(v string) string {
	switch f {
	case Base64:
		return base64.StdEncoding.EncodeToString([]byte(v))
	case JSONEscaped:
		q, err := json.Marshal(v)
		if err != nil { // not reached: a Go string always marshals
			return v
		}
		return string(q[1 : len(q)-1])
	case Upper:
		return strings.ToUpper(v)
	case Lower:
		return strings.ToLower(v)
	case SHA256:
		sum := sha256.Sum256([]byte(v))
		return hex.EncodeToString(sum[:])
	}
	return v
}

// AllForms are the forms a chart's files are rewritten in (Placeholders.ChartFiles).
var AllForms = []Form{Plain, Base64, JSONEscaped, Upper, Lower, SHA256}

// ValueForms returns v in each of forms, in order, without repeats (the upper case of
// "A1" is "A1"); an empty v has none.
func ValueForms(v string, forms ...Form) []string {
	if v == "" {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range forms {
		if s := f.Of(v); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// MinValueBytes is the shortest Secret value replaced or redacted wherever it occurs: a
// shorter one ("1", "a", "on") matches ordinary text everywhere. The review's bound
// (review minSecretBytes) and substitution's (render/kustomize minRedactBytes).
const MinValueBytes = 4

// WordShaped reports whether s reads as a word or words of a language ("default",
// "Secret", "kube-system", "PROD"), no digit in it: such a Secret value, replaced wherever
// it stands, would cut ordinary words and tell the value to anyone who sees where the
// replacement appears (review's common values, docs/decisions.md).
func WordShaped(s string) bool { return wordShape.MatchString(s) }

var wordShape = regexp.MustCompile(`^([A-Z]?[a-z]+|[A-Z]+)([-_.][a-z]+)*$`)

// KeyLines returns the lines of a multi-line value (a key file a generator read) that are
// key material: made of the base64 alphabet (RFC 4648, standard and URL-safe), not
// word-shaped (WordShaped) nor a number, blanks around them dropped. A PEM body line is
// ("MIIEow…"); a PEM boundary ("-----BEGIN KEY-----") and a YAML or dotenv line ("hosts:",
// "port: 5432") are not: they say what the file is, and a line that names a key would be
// masked wherever the key is. Another text may hold a line of the value alone (a YAML
// block scalar, indented), so each is masked by value too.
func KeyLines(v string) []string {
	if !strings.Contains(v, "\n") {
		return nil
	}
	var out []string
	for _, l := range strings.Split(v, "\n") {
		if l = strings.TrimSpace(l); keyLine.MatchString(l) && !WordShaped(l) && strings.Trim(l, "0123456789") != "" {
			out = append(out, l)
		}
	}
	return out
}

// keyLine matches a line of key material: base64 (standard or URL-safe) text.
var keyLine = regexp.MustCompile(`^[A-Za-z0-9+/_-]+={0,2}$`)
