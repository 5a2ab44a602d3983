package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/index"
	"github.com/tiergate/tiergate/internal/yamlerr"
)

// Kustomize names the manifest that fails to parse relative to the kustomization that
// lists it, never as a path locateError can place: "MalformedYAMLError: yaml: line 3: … in
// File: cm.yaml" and "YAML file [cm.yaml] encounters a format error" (api/internal/kusterr
// yamlformaterror.go MalformedYamlError.Error and YamlFormatError.Error, returned by
// api/internal/target/kusttarget.go accumulateResources). A patch file that does not parse
// is named only by its entry ("unable to parse SM or JSON patch from [path: \"p.yaml\"]").
var (
	malformedIn   = regexp.MustCompile(`MalformedYAMLError: .* in File: (\S+)`)
	formatErrorIn = regexp.MustCompile(`YAML file \[([^\]]+)\] encounters a format error`)
	entryValue    = regexp.MustCompile(`^\s*(?:-\s*)?(?:path\s*:\s*)?["']?([^"'#\s]+)["']?\s*(?:#.*)?$`)
)

// malformedManifest moves be, an error placed at a kustomization file's entry, to the
// line of the YAML file that fails to parse: the manifest kustomize names, else the file
// the entry names, else the kustomization file itself. be is returned as it is when every
// one of them parses.
func malformedManifest(ix *index.Index, be *graph.BuildError) *graph.BuildError {
	if be == nil || be.Details != "" || !fsys.IsKustomizationFile(be.File) {
		return be
	}
	dir := path.Dir(be.File)
	var candidates []string
	for _, re := range []*regexp.Regexp{malformedIn, formatErrorIn} {
		if m := lastMatch(re, be.Message); m != nil {
			candidates = append(candidates, path.Join(dir, m[1]))
		}
	}
	if e := entryOn(ix, be.File, be.Line); e != "" {
		candidates = append(candidates, path.Join(dir, e))
	}
	candidates = append(candidates, be.File)
	for _, rel := range candidates {
		if !ix.Readable(rel) {
			continue
		}
		data, ok := ix.Snapshot().Read(rel)
		if !ok {
			continue
		}
		if line, reason := yamlCause(data); line > 0 {
			return &graph.BuildError{File: rel, Line: line, Details: be.Message,
				Message: fmt.Sprintf("%s:%d is not valid YAML: %s", rel, line, reason)}
		}
	}
	return be
}

// entryOn is the file name a kustomization file's line lists ("- cm.yaml", "path: p.yaml");
// "" for another line.
func entryOn(ix *index.Index, rel string, line int) string {
	data, ok := ix.Snapshot().Read(rel)
	if !ok || line < 1 {
		return ""
	}
	lines := strings.Split(string(data), "\n")
	if line > len(lines) {
		return ""
	}
	if m := entryValue.FindStringSubmatch(lines[line-1]); m != nil && strings.Contains(m[1], ".") && !strings.HasSuffix(m[1], ":") {
		return m[1]
	}
	return ""
}

// yamlCause parses data as a YAML stream and returns the line of its first syntax error,
// counted from the start of the file, with yaml.v3's reason; 0 when it parses. Only syntax
// is judged here: what parses but does not decode is summarize's (a key defined twice).
func yamlCause(data []byte) (int, string) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return 0, ""
		}
		if err == nil {
			continue
		}
		if yamlSyntax.FindStringSubmatch(err.Error()) == nil {
			return 0, ""
		}
		line, reason, ok := yamlerr.Line(strings.TrimPrefix(err.Error(), "yaml: "))
		if !ok {
			return 0, ""
		}
		return min(line, yamlerr.LastLine(data)), reason
	}
}
