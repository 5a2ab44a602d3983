package render

import (
	"bytes"
	"path"
	"regexp"
	"slices"

	yamlv3 "gopkg.in/yaml.v3"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// redactedBuildError returns e with every Secret value of the build's inputs, and its
// base64 form, masked in its texts (graph.MaskValues): kustomize's errors quote the node
// they fail at (filters/replacement's "node contents:", kyaml's field errors), which may
// be a Secret's value of any length, and a generated Secret's data is base64
// (api/filters/replacement's getRefinedValue: "options.index %d is out of bounds for value
// %s"). When the build read a Secret manifest, Go-syntax dumps of YAML nodes are withheld
// too (graph.WithholdGoDumps): a malformed Secret's key quotes pieces of its value. It
// runs before the error is kept or shown; e is not changed.
func redactedBuildError(e *graph.BuildError, snap *graph.Snapshot, deps []fsys.Dep) *graph.BuildError {
	if e == nil {
		return nil
	}
	if e.File != "" { // the file the error names, read by the generator (a DepTree) too
		deps = append(slices.Clip(deps), fsys.Dep{Op: fsys.DepRead, Path: e.File})
	}
	values, secret := buildSecretValues(snap, deps)
	values = withBase64(values)
	return e.MapTexts(func(s string) string {
		s = graph.MaskValues(s, values)
		if secret {
			s = graph.WithholdGoDumps(s)
		}
		return s
	})
}

// buildSecretValues lists the Secret values among the files a build read: the data
// (as written and decoded) and stringData of each Secret document, and what each
// kustomization file's secretGenerator makes a value of (literals after '=', the files
// and env files it names, each env line's value), as kustomize's
// api/kv.loader reads them.
func buildSecretValues(snap *graph.Snapshot, deps []fsys.Dep) (out []string, secret bool) {
	for _, d := range deps {
		if d.Op != fsys.DepRead {
			continue
		}
		data, ok := snap.Read(d.Path)
		if !ok {
			continue
		}
		secret = secret || secretKindLine.Match(data)
		dec := yamlv3.NewDecoder(bytes.NewReader(data))
		for {
			var doc map[string]any
			if dec.Decode(&doc) != nil {
				break
			}
			switch {
			case doc["kind"] == "Secret":
				out = append(out, graph.SecretDataValues(doc["data"], doc["stringData"])...)
			case isKustomizationFile(d.Path):
				out = append(out, generatorValues(snap, path.Dir(d.Path), doc["secretGenerator"])...)
			}
		}
	}
	return out, secret
}

// secretKindLine finds a Secret document even where it does not parse as YAML.
var secretKindLine = regexp.MustCompile(`(?m)^kind:[ \t]*["']?Secret["']?[ \t]*(#.*)?\r?$`)

// withBase64 returns values with the standard base64 of each added: kustomize's
// secretGenerator stores a literal, file or env value (quotes an env file keeps
// included, api/kv reads the line as written) base64-encoded in data, and errors quote it.
func withBase64(values []string) []string {
	out := slices.Clone(values)
	for _, v := range values {
		out = append(out, graph.ValueForms(v, graph.Base64)...)
	}
	return out
}

// isKustomizationFile reports whether rel is named as kustomize's kustomization files.
func isKustomizationFile(rel string) bool {
	switch path.Base(rel) {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return true
	}
	return false
}

// generatorValues is what the secretGenerator entries gens of a kustomization file in
// dir make values of: literals, files and env files (graph.SecretGeneratorSources; read
// from the snapshot only).
func generatorValues(snap *graph.Snapshot, dir string, gens any) []string {
	src := graph.SecretGeneratorSources(gens)
	out := slices.Clone(src.Literals)
	read := func(p string) string {
		data, _ := snap.Read(path.Join(dir, p))
		return string(data)
	}
	for _, f := range src.Files {
		out = append(out, read(f))
	}
	for _, e := range src.Envs {
		out = append(out, graph.EnvValues(read(e))...)
	}
	return out
}

// maskRenderError returns msg, the error of a HelmRelease's render, with each value of
// the cluster's Secrets (clusterSecretValues) masked in each form a chart's files are
// rewritten in (graph.AllForms, graph.MaskValues): Helm's parse, execution and schema
// errors quote the template text and the values they fail at
// (helm.sh/helm/v4 pkg/engine/engine.go, pkg/chart/common/util/jsonschema.go). Values
// under graph.MinValueBytes are left (as the review's redaction by value leaves them): a
// Secret's "80" or "true" would mask line numbers and words of every error.
func maskRenderError(msg string, secrets []string) string {
	var values []string
	for _, v := range secrets {
		if len(v) >= graph.MinValueBytes {
			values = append(values, graph.ValueForms(v, graph.AllForms...)...)
		}
	}
	return graph.MaskValues(msg, values)
}
