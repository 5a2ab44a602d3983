package review

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTokenBoundary: a short Secret-derived token of a reference field (jw, a.b) is
// redacted where it stands as a whole word, also before sentence punctuation (".", ",",
// ")", ":") and at the end of the text; it stays where it is part of a longer word
// ("jwt", "a-jw", "jw.yaml", "x.jw", "jw_1"). Before, "charts/jw." showed the value.
func TestTokenBoundary(t *testing.T) {
	r := redaction{tokens: []string{"jw", "a.b"}}.replacer()
	cases := map[string]string{
		"add the folder charts/jw.":           "add the folder charts/<redacted>.",
		"names jw, which is missing":          "names <redacted>, which is missing",
		"(release jw)":                        "(release <redacted>)",
		"namespace jw: not found":             "namespace <redacted>: not found",
		"dependsOn default/jw":                "dependsOn default/<redacted>",
		"jw":                                  "<redacted>",
		"jw.":                                 "<redacted>.",
		"./charts/jw/templates/cm.yaml":       "./charts/<redacted>/templates/cm.yaml",
		"jw/jw.":                              "<redacted>/<redacted>.",
		`namespaces "jw" not found...`:        `namespaces "<redacted>" not found...`,
		"it is a.b.":                          "it is <redacted>.",
		"jwt a-jw jw-a jw_1 jw.yaml x.jw jw2": "jwt a-jw jw-a jw_1 jw.yaml x.jw jw2",
		"a.bc a.b.c xa.b":                     "a.bc a.b.c xa.b",
	}
	for in, want := range cases {
		if got := r.Replace(in); got != want {
			t.Errorf("Replace(%q) = %q, want %q", in, got, want)
		}
	}
	if d := cmp.Diff("no tokens jw.", redaction{}.replacer().Replace("no tokens jw.")); d != "" {
		t.Errorf("without tokens (-want +got):\n%s", d)
	}
}
