package helmrelease

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/values"
)

// placeholderKey keys the placeholders of Secret values: random per process, so that a
// placeholder tells whether a value changed between base and head without being a hash
// anyone could test guesses against.
var placeholderKey = func() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}()

// SecretPlaceholder is what a chart sees instead of the Secret value v:
// "tiergate-redacted-<8 hex>", the same for the same value within a process.
func SecretPlaceholder(v string) string {
	m := hmac.New(sha256.New, placeholderKey)
	m.Write([]byte(v))
	return "tiergate-redacted-" + hex.EncodeToString(m.Sum(nil))[:8]
}

// PlaceholderSecrets is the client a HelmRelease's valuesFrom reads: Secrets come back with
// every string replaced by its placeholder (the string leaves of a YAML document, keeping its
// shape), so that no Secret value, nor anything a template derives from one (upper, b64enc,
// sha256sum), reaches the rendered output or the report. The render is then approximate
// where a template depends on a Secret's exact value.
type PlaceholderSecrets struct{ client.Client }

func (p PlaceholderSecrets) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := p.Client.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	sec, ok := obj.(*corev1.Secret)
	if !ok {
		return nil
	}
	for k, v := range sec.StringData {
		if sec.Data == nil {
			sec.Data = map[string][]byte{}
		}
		sec.Data[k] = []byte(v)
	}
	sec.StringData = nil
	for k, v := range sec.Data {
		sec.Data[k] = placeholderValue(v)
	}
	return nil
}

// placeholderValue replaces the strings of a Secret value: each string leaf of a YAML
// mapping or list, or the whole value. Numbers and booleans keep their type.
func placeholderValue(data []byte) []byte {
	var doc any
	if err := sigsyaml.Unmarshal(data, &doc); err == nil {
		switch doc.(type) {
		case map[string]any, []any:
			if out, err := sigsyaml.Marshal(placeholderLeaves(doc)); err == nil {
				return out
			}
		}
	}
	return []byte(SecretPlaceholder(string(data)))
}

func placeholderLeaves(x any) any {
	switch t := x.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = placeholderLeaves(e)
		}
	case []any:
		for i, e := range t {
			t[i] = placeholderLeaves(e)
		}
	case string:
		return SecretPlaceholder(t)
	}
	return x
}

// ReadsSecrets reports whether hr has a valuesFrom Secret.
func ReadsSecrets(hr *unstructured.Unstructured) bool {
	refs, _, _ := unstructured.NestedSlice(hr.Object, "spec", "valuesFrom")
	for _, v := range refs {
		if ref, _ := v.(map[string]any); values.String(ref, "kind") == "Secret" {
			return true
		}
	}
	return false
}

// WithPlaceholderFields returns hr with every field of fields (the fields of hr postBuild
// substitution wrote from a Secret variable, render's Object.SecretFields) under
// spec.values written with its Secret-derived parts replaced by their placeholders, as
// valuesFrom Secrets are (PlaceholderSecrets): a chart template that transforms the value
// (upper, trunc, b64enc, printf) then writes a transformation of the placeholder, never of
// the Secret. A field that substitution made a number or boolean keeps its value: a
// placeholder would change its type for the chart. It reports whether any field was
// replaced; hr itself is not changed.
func WithPlaceholderFields(hr *unstructured.Unstructured, fields []graph.SecretField) (*unstructured.Unstructured, bool) {
	var c *unstructured.Unstructured
	replaced := false
	for _, f := range fields {
		if len(f.Path) < 3 || f.Path[0] != "spec" || f.Path[1] != "values" {
			continue
		}
		if c == nil {
			c = hr.DeepCopy()
		}
		replaced = replacePlaceholder(c.Object, f) || replaced
	}
	if !replaced {
		return hr, false
	}
	return c, true
}

// replacePlaceholder writes f's placeholder text at its path in obj (a key renamed, a
// string value replaced); false when the path leads nowhere or to a value not a string.
func replacePlaceholder(obj map[string]any, f graph.SecretField) bool {
	parent, ok := graph.ValueAt(obj, f.Path[:len(f.Path)-1])
	if !ok {
		return false
	}
	text := f.Masked(SecretPlaceholder)
	last := f.Path[len(f.Path)-1]
	switch p := parent.(type) {
	case map[string]any:
		v, ok := p[last]
		if !ok {
			return false
		}
		if f.Key {
			delete(p, last)
			p[text] = v
			return true
		}
		if _, str := v.(string); !str {
			return false
		}
		p[last] = text
		return true
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(p) || f.Key {
			return false
		}
		if _, str := p[i].(string); !str {
			return false
		}
		p[i] = text
		return true
	}
	return false
}
