package render

import "testing"

// TestMaskRenderError: a Helm render error is masked by each value of the cluster's
// Secrets in each form (plain, base64, upper case); a value under 4 bytes is left, so that
// line numbers stay.
func TestMaskRenderError(t *testing.T) {
	secrets := []string{"Kq9render7x", "80"}
	for _, c := range []struct{ msg, want string }{
		{`parse error at (app/templates/x.yaml:80): function "Kq9render7x" not defined`,
			`parse error at (app/templates/x.yaml:80): function "<redacted>" not defined`},
		{`values don't meet the specifications of the schema: at '/pw': value must be "S3E5cmVuZGVyN3g="`,
			`values don't meet the specifications of the schema: at '/pw': value must be "<redacted>"`},
		{"execution error: bad KQ9RENDER7X", "execution error: bad <redacted>"},
		{"execution error at (app/templates/x.yaml:80:3): no value", "execution error at (app/templates/x.yaml:80:3): no value"},
	} {
		if got := maskRenderError(c.msg, secrets); got != c.want {
			t.Errorf("maskRenderError(%q) = %q, want %q", c.msg, got, c.want)
		}
	}
}
