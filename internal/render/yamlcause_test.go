package render

import "testing"

// TestYAMLCauseLine: the malformed-manifest cause is the 1-based line yaml.v3 rejects,
// for a parser error (a Flux variable in a flow sequence, printed one line early by
// yaml.v3) and a scanner error (printed right).
func TestYAMLCauseLine(t *testing.T) {
	for name, c := range map[string]struct {
		text   string
		line   int
		reason string
	}{
		"parser":  {"spec:\n  tls:\n    - hosts: [podinfo.${CLUSTER_DOMAIN}]\n      secretName: x\n", 3, "did not find expected ',' or ']'"},
		"scanner": {"kind: ConfigMap\ndata: a: b\n", 2, "mapping values are not allowed in this context"},
		"valid":   {"kind: ConfigMap\n", 0, ""},
	} {
		t.Run(name, func(t *testing.T) {
			if line, reason := yamlCause([]byte(c.text)); line != c.line || reason != c.reason {
				t.Errorf("yamlCause = %d, %q; want %d, %q", line, reason, c.line, c.reason)
			}
		})
	}
}
