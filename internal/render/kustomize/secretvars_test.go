package kustomize

import (
	"testing"

	"github.com/fluxcd/pkg/envsubst/parse"
	"github.com/google/go-cmp/cmp"
)

// Every bash-style operator on a Secret variable gives the value Flux writes, in the order
// written; operators on other variables, and values under minRedactBytes, give nothing.
func TestSecretDerived(t *testing.T) {
	vars := map[string]string{"TOKEN": "hunter2-head-secret", "SECRET_DOMAIN": "example.com", "PUBLIC": "public-value", "PAT": "head"}
	secret := map[string]bool{"TOKEN": true, "SECRET_DOMAIN": true}
	text := `a: ${TOKEN^^}
b: ${TOKEN,,} ${TOKEN^} ${TOKEN,}
c: ${TOKEN:0:7} ${TOKEN:8}
d: ${SECRET_DOMAIN/./-}-production ${SECRET_DOMAIN//e/E} ${TOKEN/#hunter2/x} ${TOKEN/%secret/y}
e: ${TOKEN#hunter2-} ${TOKEN%-secret} ${TOKEN##*-} ${TOKEN%%-*}
f: ${TOKEN:-unused} ${UNSET:-${TOKEN}} ${TOKEN/${PAT}/HEAD}
g: ${#TOKEN} ${PUBLIC^^} ${TOKEN:0:2} ${PUBLIC}
h: ${TOKEN/hunter2-/} ${TOKEN//e/} ${TOKEN/#hunter2/} ${TOKEN/%-secret/}
`
	tree, err := parse.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"HUNTER2-HEAD-SECRET",
		"hunter2-head-secret", "Hunter2-head-secret", "hunter2-head-secret",
		"hunter2", "head-secret",
		"example-com", "ExamplE.com", "x-head-secret", "hunter2-head-y",
		"head-secret", "hunter2-head", "secret", "hunter2",
		// ${UNSET:-${TOKEN}}: the inner expression and the default that writes it.
		"hunter2-head-secret", "hunter2-head-secret", "hunter2-head-secret", "hunter2-HEAD-secret",
		// envsubst v1.8.0 leaves the value as it is for /# and /% with an empty replacement
		// (what the real substitution writes, so what is redacted).
		"head-secret", "huntr2-had-scrt", "hunter2-head-secret", "hunter2-head-secret",
	}
	if d := cmp.Diff(want, secretDerived(tree.Root, vars, secret)); d != "" {
		t.Errorf("secretDerived (-want +got):\n%s", d)
	}
	if got := secretDerived(tree.Root, vars, nil); got != nil {
		t.Errorf("secretDerived without Secret variables = %q, want none", got)
	}
}
