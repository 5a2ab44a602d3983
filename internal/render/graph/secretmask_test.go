package graph

import "testing"

func TestMaskSecretParts(t *testing.T) {
	fields := []SecretField{
		{Path: []string{"spec", "retryInterval"}, Parts: []TextPart{{Text: "zq", Secret: true}}},
		{Path: []string{"spec", "timeout"}, Parts: []TextPart{{Text: "3"}, {Text: "q", Secret: true}, {Text: "x"}}},
		{Path: []string{"spec", "pin"}, Parts: []TextPart{{Text: "12", Secret: true}}},
		{Path: []string{"metadata", "labels", "l"}, Parts: []TextPart{{Text: "-g", Secret: true}}},
	}
	for _, tc := range []struct{ in, want string }{
		{`spec.retryInterval: "zq" is not a duration`, `spec.retryInterval: "<redacted>" is not a duration`},
		{`spec.timeout: "3qx" is not a duration`, `spec.timeout: "3<redacted>x" is not a duration`},
		{`label value -g: must begin with a letter`, `label value <redacted>: must begin with a letter`},
		{`pin "12" at line 12`, `pin "<redacted>" at line 12`},
		{`'zq'`, `'<redacted>'`},
		// Negatives: inside a larger word, joined by a dot, or digits unquoted.
		{`zqx xzq zq.yaml a-zq 3q q`, `zqx xzq zq.yaml a-zq 3q <redacted>`},
		{`(e1/ks.yaml:12)`, `(e1/ks.yaml:12)`},
	} {
		if got := MaskSecretParts(tc.in, fields); got != tc.want {
			t.Errorf("MaskSecretParts(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := MaskSecretParts("zq", nil); got != "zq" {
		t.Errorf("no fields: %q", got)
	}
}

func TestMaskValues(t *testing.T) {
	values := []string{"k9z", "Lm7first line of key\nLm7second line\n", "12"}
	for _, tc := range []struct{ in, want string }{
		{"node contents:\nk9z\n", "node contents:\n<redacted>\n"},
		{"node contents:\nLm7first line of key Lm7second line\n", "node contents:\n<redacted>\n"},
		{"a: Lm7second line", "a: <redacted>"},
		{"x:Lm7first line of key|", "x:<redacted>|"},
		// Negatives: a short value inside a word, digits unquoted.
		{"k9zz ak9z line 12", "k9zz ak9z line 12"},
		{`pin "12"`, `pin "<redacted>"`},
	} {
		if got := MaskValues(tc.in, values); got != tc.want {
			t.Errorf("MaskValues(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// yaml.v2's dumps of a map key and a list key are withheld to the end of their line only;
// a text without the phrase is unchanged.
func TestWithholdGoDumps(t *testing.T) {
	for in, want := range map[string]string{
		`envsubst error: YAMLToJSON: yaml: invalid map key: map[interface {}]interface {}{"Qkhd9zzsecret":1}`: `envsubst error: YAMLToJSON: yaml: invalid map key: <redacted>`,
		"yaml: invalid map key: []interface {}{\"Ksahd9zz\"}\nnext line":                                      "yaml: invalid map key: <redacted>\nnext line",
		"a: invalid map key: x\nb: invalid map key: y":                                                        "a: invalid map key: <redacted>\nb: invalid map key: <redacted>",
		`yaml: line 2: mapping values are not allowed in this context`:                                        `yaml: line 2: mapping values are not allowed in this context`,
	} {
		if got := WithholdGoDumps(in); got != want {
			t.Errorf("WithholdGoDumps(%q) = %q, want %q", in, got, want)
		}
	}
}
