package graph

import (
	"bufio"
	"strings"
)

// GeneratorSources is what the secretGenerator entries of one kustomization file make
// values of, as kustomize's api/kv loader reads them: each literal's value, the paths of
// the files whose whole content is a value, and the paths of the env files whose lines
// give values (relative to the kustomization file's folder, as written).
type GeneratorSources struct {
	Literals []string
	Files    []string
	Envs     []string
}

// SecretGeneratorSources reads gens, a kustomization file's secretGenerator list as decoded
// from YAML (any shape: what is not a list of maps gives nothing). A literal is "key=value"
// (LiteralValue); a file is "path" or "key=path" (sigs.k8s.io/kustomize/api kv.go
// ParseFileSource); envs and the older env name env files.
func SecretGeneratorSources(gens any) GeneratorSources {
	var out GeneratorSources
	list, _ := gens.([]any)
	for _, g := range list {
		m, _ := g.(map[string]any)
		for _, l := range LeafStrings(m["literals"]) {
			if v, ok := LiteralValue(l); ok {
				out.Literals = append(out.Literals, v)
			}
		}
		for _, f := range LeafStrings(m["files"]) {
			if _, p, ok := strings.Cut(f, "="); ok {
				f = p
			}
			out.Files = append(out.Files, f)
		}
		out.Envs = append(out.Envs, LeafStrings(m["envs"])...)
		if e, ok := m["env"].(string); ok {
			out.Envs = append(out.Envs, e)
		}
	}
	return out
}

// LiteralValue returns the value of a generator literal "key=value", with the quotes
// around it removed when the same quote opens and closes it (sigs.k8s.io/kustomize/api
// kv.go parseLiteralSource, removeQuotes); false without '=' or with an empty key.
func LiteralValue(l string) (string, bool) {
	k, v, ok := strings.Cut(l, "=")
	if !ok || k == "" {
		return "", false
	}
	if len(v) >= 2 && v[0] == v[len(v)-1] && (v[0] == '"' || v[0] == '\'') {
		v = v[1 : len(v)-1]
	}
	return v, true
}

// EnvValues returns the values an env file's lines give, as written after the first '='
// (quotes kept), comment and blank lines skipped (sigs.k8s.io/kustomize/api kv.go
// keyValuesFromLines, keyValuesFromLine; a line without '=' has an empty value).
func EnvValues(text string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimLeft(sc.Text(), " \t\v\f\r\ufeff")
		if line == "" || line[0] == '#' {
			continue
		}
		if _, v, ok := strings.Cut(line, "="); ok && v != "" {
			out = append(out, v)
		}
	}
	return out
}
