package graph

import (
	"reflect"
	"testing"
)

// A secretGenerator's literals give their values (matching quotes removed, kustomize
// kv.go removeQuotes), files their paths ("key=path" too), envs and env their env files;
// an env file gives each line's value after the first '=', quotes kept, comments, blank
// lines and empty values skipped.
func TestSecretGeneratorSources(t *testing.T) {
	gens := []any{
		map[string]any{"literals": []any{"A=x=y", `B="q v"`, `C='only`, "=novalue", "D"}, "files": []any{"f.txt", "k=sub/g.pem"}, "envs": []any{"a.env"}, "env": "b.env"},
		"not a map",
	}
	want := GeneratorSources{Literals: []string{"x=y", "q v", "'only"}, Files: []string{"f.txt", "sub/g.pem"}, Envs: []string{"a.env", "b.env"}}
	if got := SecretGeneratorSources(gens); !reflect.DeepEqual(got, want) {
		t.Errorf("SecretGeneratorSources = %+v, want %+v", got, want)
	}
	if got := SecretGeneratorSources("x"); !reflect.DeepEqual(got, GeneratorSources{}) {
		t.Errorf("not a list: %+v", got)
	}
	got := EnvValues("\ufeffK=v1\n  # c=x\n\nQ=\"quoted\"\r\nE=\nNOVALUE\nX=a=b")
	if want := []string{"v1", `"quoted"`, "a=b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("EnvValues = %q, want %q", got, want)
	}
}
