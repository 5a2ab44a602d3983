package helmrelease

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"io"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"
)

// SecretFilesNote is the graph.Release.Approximate entry of a release whose chart holds,
// outside its templates, a file with a Secret manifest (Placeholders.ChartFiles).
const SecretFilesNote = "chart files holding a Secret manifest replaced by placeholders"

// ChartFiles returns ch with every file templates read through .Files (chart.Chart.Files:
// what Helm's loader does not take for a template, Chart.yaml, values or a subchart,
// pkg/chart/v2/loader/load.go LoadFiles; the engine gives them to templates as .Files,
// pkg/engine/engine.go allTemplates, files.go newFiles; crds/ files included) that holds a Kubernetes Secret manifest (a YAML document of
// kind Secret with data or stringData) rewritten with each value replaced by its
// placeholder (Text; a data value stays base64, of the placeholder; a sops: block's
// strings too), the other documents
// as written, so that a template printing the file, or a transformation of it, prints
// placeholders. Subcharts are rewritten too. It reports whether a file was rewritten;
// ch itself is never changed (charts are shared, ChartMemo), the result is a shallow copy.
func (p Placeholders) ChartFiles(ch *chart.Chart) (*chart.Chart, bool) {
	if ch == nil {
		return ch, false
	}
	var files []*common.File
	changed := false
	for i, f := range ch.Files {
		data, ok := p.secretFile(f.Data)
		if !ok {
			continue
		}
		if files == nil {
			files = append(files, ch.Files...)
		}
		nf := *f
		nf.Data = data
		files[i] = &nf
		changed = true
	}
	deps := ch.Dependencies()
	var newDeps []*chart.Chart
	for i, d := range deps {
		nd, ok := p.ChartFiles(d)
		if !ok {
			continue
		}
		if newDeps == nil {
			// Copies of all: SetDependencies sets each one's parent, and the charts are shared.
			for _, e := range deps {
				cp := *e
				newDeps = append(newDeps, &cp)
			}
		}
		newDeps[i] = nd
		changed = true
	}
	if !changed {
		return ch, false
	}
	c := *ch
	if files != nil {
		c.Files = files
	}
	if newDeps != nil {
		c.SetDependencies(newDeps...)
	}
	return &c, true
}

// secretFile returns data with the values of its Secret documents replaced, and whether it
// held one. A file that does not split into YAML documents is left as it is.
func (p Placeholders) secretFile(data []byte) ([]byte, bool) {
	if !bytes.Contains(data, []byte("Secret")) {
		return nil, false // most files: no parse
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	found := false
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, false
		}
		if masked, ok := p.secretDoc(doc); ok {
			doc, found = masked, true
		}
		docs = append(docs, doc)
	}
	if !found {
		return nil, false
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
	return out.Bytes(), true
}

// secretDoc returns doc (one YAML document) written again with its data and stringData
// values replaced, when it is a Secret holding either.
func (p Placeholders) secretDoc(doc []byte) ([]byte, bool) {
	var obj map[string]any
	if err := sigsyaml.Unmarshal(doc, &obj); err != nil || obj["kind"] != "Secret" {
		return nil, false
	}
	found := false
	if m, ok := obj["data"].(map[string]any); ok {
		for k, v := range m {
			s, _ := v.(string)
			plain, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				plain = []byte(s)
			}
			m[k] = base64.StdEncoding.EncodeToString([]byte(p.Text(string(plain))))
			found = true
		}
	}
	if m, ok := obj["stringData"].(map[string]any); ok {
		for k, v := range m {
			s, ok := v.(string)
			if !ok {
				b, _ := sigsyaml.Marshal(v)
				s = string(bytes.TrimSpace(b))
			}
			m[k] = p.Text(s)
			found = true
		}
	}
	if !found {
		return nil, false
	}
	if m, ok := obj["sops"].(map[string]any); ok {
		// A SOPS file's recipients, wrapped data keys and MAC: review redacts them too.
		obj["sops"] = p.leaves(m, nil, true)
	}
	out, err := sigsyaml.Marshal(obj)
	if err != nil {
		return nil, false
	}
	return out, true
}
