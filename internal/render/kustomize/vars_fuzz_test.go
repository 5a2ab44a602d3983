package kustomize

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fluxcd/pkg/envsubst"
	"github.com/fluxcd/pkg/envsubst/parse"
	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/rendertest"
)

// FuzzUndefinedVars compares undefinedVars with fluxcd/pkg/envsubst in strict mode, the
// evaluator kustomize-controller runs: for any text and set of defined variables (names
// separated by commas), the variables undefinedVars lists are exactly those on which strict
// evaluation fails, found by evaluating again with each failing variable defined until it
// succeeds. Text envsubst cannot parse yields none (the build reports the parse error).
func FuzzUndefinedVars(f *testing.F) {
	rendertest.AddYAMLSeeds(f, "cluster_env,cluster_name,domain")
	for _, s := range []string{
		"${A} ${B:=b} $${C} ${D:-${E}} ${#F} ${G/a/b} ${H,,} ${I:1:2} $J ${K:?msg} ${}",
		"a: ${X:-${Y:+${Z}}}\nb: ${X}${X}\n",
		"${unterminated",
	} {
		f.Add([]byte(s), "A,X")
	}
	f.Fuzz(func(t *testing.T, text []byte, defined string) {
		vars := map[string]string{}
		for _, name := range strings.Split(defined, ",") {
			if name != "" {
				vars[name] = "v"
			}
		}
		tree, err := parse.Parse(string(text))
		if err != nil {
			return // substitution fails on it as a whole: no variable to name
		}
		got := undefinedVars(tree.Root, vars)
		var want []string
		for range len(got) + 2 {
			_, err := envsubst.Eval(string(text), func(k string) (string, bool) {
				v, ok := vars[k]
				return v, ok
			})
			if err == nil {
				break
			}
			name, ok := strictVar(err)
			if !ok {
				t.Fatalf("envsubst: %v", err)
			}
			if _, again := vars[name]; again {
				t.Fatalf("envsubst fails on %q, which is defined", name)
			}
			want = append(want, name)
			vars[name] = ""
		}
		sort.Strings(want)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("undefinedVars disagrees with strict envsubst (-envsubst +undefinedVars):\n%s", d)
		}
	})
}

// strictVar reads the variable of envsubst's strict-mode error `variable not set (strict
// mode): "NAME"`.
func strictVar(err error) (string, bool) {
	const prefix = "variable not set (strict mode): "
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return "", false
	}
	name, uerr := strconv.Unquote(msg[len(prefix):])
	return name, uerr == nil
}
