package helmrelease

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"path"
	"slices"
	"strings"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// fileRole is what a chart-local secretGenerator makes of a chart file.
type fileRole int

const (
	noRole     fileRole = iota
	wholeValue          // files: the whole content is a value
	envValues           // envs: each line's value is a value
)

// generatorRoles returns the files of ch that a secretGenerator of one of ch's
// kustomization files reads, by chart file name (graph.SecretGeneratorSources; a path
// leaving the chart is not a chart file).
func generatorRoles(ch *chart.Chart) map[string]fileRole {
	out := map[string]fileRole{}
	for _, f := range ch.Files {
		if !isKustomizationFile(f.Name) {
			continue
		}
		dir := path.Dir(f.Name)
		for _, doc := range yamlDocs(f.Data) {
			var k map[string]any
			if sigsyaml.Unmarshal(doc, &k) != nil {
				continue
			}
			src := graph.SecretGeneratorSources(k["secretGenerator"])
			for _, p := range src.Files {
				if name, ok := chartPath(dir, p); ok {
					out[name] = wholeValue
				}
			}
			for _, p := range src.Envs {
				if name, ok := chartPath(dir, p); ok {
					out[name] = envValues
				}
			}
		}
	}
	return out
}

// chartPath returns the chart file name of p, relative to dir; false when p leaves the
// chart or is absolute.
func chartPath(dir, p string) (string, bool) {
	if path.IsAbs(p) {
		return "", false
	}
	j := path.Join(dir, p)
	return j, j != ".." && !strings.HasPrefix(j, "../")
}

// isKustomizationFile reports whether name is named as kustomize's kustomization files.
func isKustomizationFile(name string) bool {
	switch path.Base(name) {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return true
	}
	return false
}

// positional returns data (the chart file name) with the Secret values at known positions
// replaced by their placeholders, and those values: a generator source as its role says,
// else each YAML document's Secrets (maskObject) and, in a kustomization file, its
// secretGenerator literals. A file that does not split into YAML documents is left as
// written (the values of the cluster still reach it by value).
func (p Placeholders) positional(name string, data []byte, role fileRole) ([]byte, []string) {
	switch role {
	case wholeValue:
		return p.wholeFile(data)
	case envValues:
		return p.envFile(data)
	}
	kust := isKustomizationFile(name)
	if !mayHoldSecret(name, data) {
		return data, nil // most files: no parse
	}
	docs := yamlDocs(data)
	if docs == nil {
		return data, nil
	}
	var values []string
	found := false
	for i, doc := range docs {
		var obj any
		if sigsyaml.Unmarshal(doc, &obj) != nil {
			continue
		}
		vals, ok := p.maskObject(obj)
		if kust {
			v, lit := p.maskLiterals(obj)
			vals, ok = append(vals, v...), ok || lit
		}
		if !ok {
			continue
		}
		out, err := marshalLike(doc, obj)
		if err != nil {
			continue
		}
		docs[i], found = out, true
		values = append(values, vals...)
	}
	if !found {
		return data, nil
	}
	var out bytes.Buffer
	for i, d := range docs {
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(d)
		if len(d) > 0 && d[len(d)-1] != '\n' {
			out.WriteByte('\n')
		}
	}
	return out.Bytes(), values
}

// marshalLike encodes obj as doc was written: JSON when doc is a JSON object (a template
// may read the file with fromJson), else YAML.
func marshalLike(doc []byte, obj any) ([]byte, error) {
	if bytes.HasPrefix(bytes.TrimSpace(doc), []byte("{")) {
		return json.Marshal(obj)
	}
	return sigsyaml.Marshal(obj)
}

// yamlDocs splits data into its YAML documents; nil when it does not split.
func yamlDocs(data []byte) [][]byte {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			return nil
		}
		docs = append(docs, doc)
	}
}

// wholeFile is positional for a file a secretGenerator reads whole: the content is one
// value (sigs.k8s.io/kustomize/api kv.go keyValuesFromFileSources), replaced by its
// placeholder, a final newline kept.
func (p Placeholders) wholeFile(data []byte) ([]byte, []string) {
	if len(data) == 0 {
		return data, nil
	}
	v := string(data)
	out := p.Text(v)
	if strings.HasSuffix(v, "\n") {
		out += "\n"
	}
	return []byte(out), []string{v}
}

// envFile is positional for an env file a secretGenerator reads: each line's value after
// the first '=' (graph.EnvValues) replaced by its placeholder, the rest as written.
func (p Placeholders) envFile(data []byte) ([]byte, []string) {
	var b strings.Builder
	var values []string
	for _, seg := range strings.SplitAfter(string(data), "\n") {
		body, nl := strings.CutSuffix(seg, "\n")
		body, cr := strings.CutSuffix(body, "\r")
		lead := strings.TrimLeft(body, " \t\v\f\ufeff")
		i := strings.IndexByte(body, '=')
		if lead == "" || lead[0] == '#' || i < 0 || i == len(body)-1 {
			b.WriteString(seg)
			continue
		}
		v := body[i+1:]
		values = append(values, v)
		b.WriteString(body[:i+1] + p.Text(v))
		if cr {
			b.WriteByte('\r')
		}
		if nl {
			b.WriteByte('\n')
		}
	}
	if values == nil {
		return data, nil
	}
	return []byte(b.String()), values
}

// maskLiterals replaces, in k (a kustomization file's document), the value of each
// secretGenerator literal by its placeholder ("K=<placeholder>"; graph.LiteralValue), and
// returns the values.
func (p Placeholders) maskLiterals(k any) ([]string, bool) {
	m, _ := k.(map[string]any)
	gens, _ := m["secretGenerator"].([]any)
	var values []string
	for _, g := range gens {
		e, _ := g.(map[string]any)
		lits, _ := e["literals"].([]any)
		for i, l := range lits {
			s, _ := l.(string)
			if v, ok := graph.LiteralValue(s); ok {
				key, _, _ := strings.Cut(s, "=")
				lits[i] = key + "=" + p.Text(v)
				values = append(values, v)
			}
		}
	}
	return values, values != nil
}

// maskObject replaces the values of obj (a decoded YAML or JSON document) when it is a
// Secret (maskSecret), or in the Secrets among its items when its kind ends in "List", as
// kustomize expands such a document, nested lists included (sigs.k8s.io/kustomize/api
// resource/factory.go inlineAnyEmbeddedLists). It returns the values replaced.
func (p Placeholders) maskObject(obj any) ([]string, bool) {
	m, ok := obj.(map[string]any)
	if !ok {
		return nil, false
	}
	kind, _ := m["kind"].(string)
	if kind == "Secret" {
		return p.maskSecret(m)
	}
	items, _ := m["items"].([]any)
	if !strings.HasSuffix(kind, "List") || items == nil {
		return nil, false
	}
	var values []string
	found := false
	for _, it := range items {
		if v, ok := p.maskObject(it); ok {
			values, found = append(values, v...), true
		}
	}
	return values, found
}

// maskSecret replaces, in a Secret s, each data value by the base64 of its placeholder
// (of the decoded value; of the value as written when it does not decode) and each
// stringData value by its placeholder, the strings of its sops: block too (the review
// redacts them), and the copies of its values in its own labels and annotations
// (maskOwnMetadata). It returns the values, and false when s holds none.
func (p Placeholders) maskSecret(s map[string]any) ([]string, bool) {
	own := map[string]string{} // a value's text -> what replaces it
	var values []string
	if m, ok := s["data"].(map[string]any); ok {
		for k, v := range m {
			str, _ := v.(string)
			plain, err := base64.StdEncoding.DecodeString(str)
			if err != nil {
				plain = []byte(str)
			} else {
				own[str] = base64.StdEncoding.EncodeToString([]byte(p.Text(string(plain))))
			}
			own[string(plain)] = p.Text(string(plain))
			values = append(values, string(plain))
			m[k] = base64.StdEncoding.EncodeToString([]byte(p.Text(string(plain))))
		}
	}
	if m, ok := s["stringData"].(map[string]any); ok {
		for k, v := range m {
			str, ok := v.(string)
			if !ok {
				b, _ := sigsyaml.Marshal(v)
				str = string(bytes.TrimSpace(b))
			}
			own[str] = p.Text(str)
			values = append(values, str)
			m[k] = p.Text(str)
		}
	}
	if len(values) == 0 {
		return nil, false
	}
	if m, ok := s["sops"].(map[string]any); ok {
		s["sops"] = p.leaves(m, nil, true)
	}
	p.maskOwnMetadata(s, own)
	return values, true
}

// lastApplied is the annotation kubectl apply keeps the whole applied object in.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// maskOwnMetadata replaces, in s's labels and annotations, each copy of its own values
// (own: a value's text, as written and decoded, and what replaces it): a string equal to
// one whatever its length, one of graph.MinValueBytes or more wherever it stands in a
// string, word-shaped or not (as the review's redactOwnMetadata: they copy the data). A
// last-applied-configuration that is a JSON object is rewritten as a document
// (maskObject) and encoded again.
func (p Placeholders) maskOwnMetadata(s map[string]any, own map[string]string) {
	meta, _ := s["metadata"].(map[string]any)
	if meta == nil {
		return
	}
	var pairs []string
	olds := slices.Collect(func(yield func(string) bool) {
		for k := range own {
			if len(k) >= graph.MinValueBytes && !yield(k) {
				return
			}
		}
	})
	slices.SortFunc(olds, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	for _, o := range olds {
		pairs = append(pairs, o, own[o])
	}
	r := strings.NewReplacer(pairs...)
	for _, field := range []string{"labels", "annotations"} {
		m, _ := meta[field].(map[string]any)
		for k, v := range m {
			str, ok := v.(string)
			if !ok {
				continue
			}
			if k == lastApplied {
				str = p.lastApplied(str)
			}
			if n, ok := own[str]; ok {
				str = n
			}
			m[k] = r.Replace(str)
		}
	}
}

// lastApplied returns s, a last-applied-configuration, with its Secret's values replaced
// (maskObject) and encoded again as encoding/json writes it (as kubectl does), a final
// newline kept; s itself when it is not such a JSON object.
func (p Placeholders) lastApplied(s string) string {
	var obj map[string]any
	if json.Unmarshal([]byte(s), &obj) != nil {
		return s
	}
	if _, ok := p.maskObject(obj); !ok {
		return s
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return s
	}
	if strings.HasSuffix(s, "\n") {
		out = append(out, '\n')
	}
	return string(out)
}
