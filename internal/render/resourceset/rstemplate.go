package resourceset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/template"
	"time"

	sprig "github.com/go-task/slim-sprig/v3"
	"github.com/gosimple/slug"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// rsTemplateTimeout bounds one template execution: text/template cannot be interrupted,
// so a template that loops past it is reported failed and its goroutine left to finish.
const rsTemplateTimeout = 10 * time.Second

// rsMaxSeq bounds the lists until/untilStep/seq make and the count repeat takes: without
// it one call allocates gigabytes.
const rsMaxSeq = 10000

// rsFuncs is flux-operator's template function map (internal/builder/resourceset.go
// newTemplate): slim-sprig's HermeticTxtFuncMap (no env, expandenv, getHostByName, clock or
// random functions), slugify, toYaml and mustToYaml. tiergate also removes ago, which
// reads the clock, and bounds the functions that allocate by a count. inputs returns nil
// here: ExecTemplate binds it to each input set.
func rsFuncs() template.FuncMap {
	fm := sprig.HermeticTxtFuncMap()
	delete(fm, "ago")
	fm["repeat"] = func(count int, s string) (string, error) {
		if count > rsMaxSeq || count*len(s) > 1<<20 {
			return "", fmt.Errorf("repeat %d times is over tiergate's limit", count)
		}
		return strings.Repeat(s, max(count, 0)), nil
	}
	until, untilStep, seq := fm["until"].(func(int) []int), fm["untilStep"].(func(int, int, int) []int), fm["seq"].(func(...int) string)
	fm["until"] = func(n int) ([]int, error) {
		if n > rsMaxSeq || n < -rsMaxSeq {
			return nil, fmt.Errorf("until %d is over tiergate's limit of %d", n, rsMaxSeq)
		}
		return until(n), nil
	}
	fm["untilStep"] = func(start, stop, step int) ([]int, error) {
		if step == 0 || (stop-start)/step > rsMaxSeq {
			return nil, fmt.Errorf("untilStep %d %d %d is over tiergate's limit of %d", start, stop, step, rsMaxSeq)
		}
		return untilStep(start, stop, step), nil
	}
	fm["seq"] = func(p ...int) (string, error) {
		lo, hi := 1, 0
		switch len(p) {
		case 1:
			hi = p[0]
		case 2, 3:
			lo, hi = p[0], p[len(p)-1]
		}
		if hi-lo > rsMaxSeq || lo-hi > rsMaxSeq {
			return "", fmt.Errorf("seq is over tiergate's limit of %d", rsMaxSeq)
		}
		return seq(p...), nil
	}
	fm["slugify"] = rsSlugify
	fm["inputs"] = func() any { return nil }
	fm["toYaml"] = func(v any) string { b, _ := yaml.Marshal(v); return string(b) }
	fm["mustToYaml"] = func(v any) (string, error) { b, err := yaml.Marshal(v); return string(b), err }
	return fm
}

// rsSlugify is flux-operator's slugify: gosimple/slug with a maximum length of 63 (a label
// value) and smart truncation, set as flux-operator sets them (internal/builder/resourceset.go
// init); nothing else in tiergate uses slug.
var rsSlugify = func() func(string) string {
	slug.MaxLength = 63
	slug.EnableSmartTruncate = true
	return slug.Make
}()

// errOutputLimit is returned when a template writes more than its bound.
var errOutputLimit = errors.New("template output exceeds tiergate's limit")

// limitWriter fails once more than n bytes are written.
type limitWriter struct {
	buf bytes.Buffer
	n   int64
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if int64(w.buf.Len()+len(p)) > w.n {
		return 0, fmt.Errorf("%w: one ResourceSet writes at most MaxBuildBytes", errOutputLimit)
	}
	return w.buf.Write(p)
}

// ParseTemplate parses text with flux-operator's delimiters << >> and missingkey=error
// (newTemplate), once for all the input sets ExecTemplate runs it with.
func ParseTemplate(text string) (*template.Template, error) {
	tp, err := template.New("resourceset").Delims("<<", ">>").Funcs(rsFuncs()).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("failed to parse template: %w", err)
	}
	return tp, nil
}

// ExecTemplate runs tp with inputs, writing at most *budget bytes, which it decreases by
// what it wrote, and running at most rsTemplateTimeout. It runs a clone, so that a run
// left behind by the timeout shares no function map with the next.
func ExecTemplate(tp *template.Template, inputs map[string]any, budget *int64) ([]byte, error) {
	tp, err := tp.Clone()
	if err != nil {
		return nil, fmt.Errorf("failed to execute template: %w", err)
	}
	tp.Funcs(template.FuncMap{"inputs": func() any { return inputs }})
	w := &limitWriter{n: *budget}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Errorf("template panicked: %v", p)
			}
		}()
		done <- tp.Execute(w, nil)
	}()
	timer := time.NewTimer(rsTemplateTimeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return nil, fmt.Errorf("failed to execute template: %w", err)
		}
		*budget -= int64(w.buf.Len())
		return w.buf.Bytes(), nil
	case <-timer.C:
		return nil, fmt.Errorf("failed to execute template: it runs longer than tiergate's limit of %s", rsTemplateTimeout)
	}
}

// ReadObjects splits rendered YAML into objects as fluxcd/pkg/ssa/utils ReadObjects does:
// empty documents are skipped, every other one must be a Kubernetes object.
func ReadObjects(data []byte) ([]*unstructured.Unstructured, error) {
	rd := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []*unstructured.Unstructured
	for {
		doc, err := rd.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("failed to read objects: %w", err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			return nil, fmt.Errorf("failed to read object: %w", err)
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetAPIVersion() == "" || u.GetKind() == "" {
			return nil, fmt.Errorf("failed to read object: apiVersion and kind are required in %q", firstLine(doc))
		}
		if u.GetName() == "" {
			return nil, fmt.Errorf("failed to read object: %s has no metadata.name", u.GetKind())
		}
		out = append(out, u)
	}
}

func firstLine(doc []byte) string {
	s := strings.TrimSpace(string(doc))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
