package render

import (
	"bytes"
	"path"
	"strings"

	yamlv3 "gopkg.in/yaml.v3"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// redactedBuildError returns e with every Secret value of the build's inputs masked in
// its texts (graph.MaskValues): kustomize's errors quote the node they fail at
// (filters/replacement's "node contents:", kyaml's field errors), which may be a Secret's
// value of any length. It runs before the error is kept or shown; e is not changed.
func redactedBuildError(e *graph.BuildError, snap *graph.Snapshot, deps []fsys.Dep) *graph.BuildError {
	if e == nil {
		return nil
	}
	values := buildSecretValues(snap, deps)
	return e.MapTexts(func(s string) string { return graph.MaskValues(s, values) })
}

// buildSecretValues lists the Secret values among the files a build read: the data
// (as written and decoded) and stringData of each Secret document, and what each
// kustomization file's secretGenerator makes a value of (literals after '=', the files
// and env files it names, each env line's value), as kustomize's
// api/kv.loader reads them.
func buildSecretValues(snap *graph.Snapshot, deps []fsys.Dep) []string {
	var out []string
	for _, d := range deps {
		if d.Op != fsys.DepRead {
			continue
		}
		data, ok := snap.Read(d.Path)
		if !ok {
			continue
		}
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
// dir make values of: literals, files and env files (read from the snapshot only).
func generatorValues(snap *graph.Snapshot, dir string, gens any) []string {
	list, _ := gens.([]any)
	var out []string
	read := func(p string) string {
		data, _ := snap.Read(path.Join(dir, p))
		return string(data)
	}
	for _, g := range list {
		m, _ := g.(map[string]any)
		for _, l := range graph.LeafStrings(m["literals"]) {
			if _, v, ok := strings.Cut(l, "="); ok {
				out = append(out, strings.Trim(v, `"'`))
			}
		}
		for _, f := range graph.LeafStrings(m["files"]) {
			if _, p, ok := strings.Cut(f, "="); ok {
				f = p
			}
			out = append(out, read(f))
		}
		envs := graph.LeafStrings(m["envs"])
		if e, ok := m["env"].(string); ok {
			envs = append(envs, e)
		}
		for _, e := range envs {
			for _, line := range strings.Split(read(e), "\n") {
				if _, v, ok := strings.Cut(line, "="); ok {
					out = append(out, v)
				}
			}
		}
	}
	return out
}
