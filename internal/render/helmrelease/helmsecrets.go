package helmrelease

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/values"
)

// Placeholders makes the placeholders a chart sees instead of Secret values: a keyed
// digest (HMAC-SHA256) of the value alone, so that a value keeps its placeholder wherever
// and whenever it is rendered with the same key (base and head, a graph kept in the
// persistent cache and one rendered now) and a changed value gets another, while nobody
// without the key can test guesses against it (an unsalted hash of a short password
// could be). The key is never printed. The zero value uses a key random per process;
// Cache.Persist gives one stored in the persistent cache, shared by the processes that
// share it (docs/reliability.md "Secret placeholders").
type Placeholders struct{ key []byte }

// processKey keys the zero Placeholders: random per process unless UseKey fixed it.
var (
	processKey      = NewPlaceholderKey()
	processKeyFixed bool
)

// UseKey makes key (32 bytes) the key of the zero Placeholders and of every persistent
// cache (FixedKey), so that processes without a shared cache folder (--no-cache, server
// replicas, CI runners) print the same placeholders for the same values. Call it before
// anything renders; an error says the length is wrong.
func UseKey(key []byte) error {
	if len(key) != 32 {
		return fmt.Errorf("placeholder key: want 32 bytes, got %d", len(key))
	}
	processKey, processKeyFixed = append([]byte(nil), key...), true
	return nil
}

// FixedKey returns the process's key (the one UseKey set, else the random one), and whether
// UseKey set it.
func FixedKey() ([]byte, bool) { return processKey, processKeyFixed }

// NewPlaceholderKey returns a new random 32-byte key for NewPlaceholders.
func NewPlaceholderKey() []byte {
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	return k
}

// NewPlaceholders returns the Placeholders keyed by key (32 bytes, NewPlaceholderKey);
// any other length gives the process's.
func NewPlaceholders(key []byte) Placeholders {
	if len(key) != 32 {
		return Placeholders{}
	}
	return Placeholders{key: append([]byte(nil), key...)}
}

func (p Placeholders) mac(data string) []byte {
	k := p.key
	if k == nil {
		k = processKey
	}
	m := hmac.New(sha256.New, k)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// ID names p's key without telling it (16 hex digits of a digest keyed by it): cache
// keys of what holds p's placeholders include it, so that a render made with another key
// is never read back as this one's.
func (p Placeholders) ID() string {
	return hex.EncodeToString(p.mac("tiergate placeholder key id"))[:16]
}

// Text is what a chart sees instead of the Secret value v: "tiergate-redacted-<8 hex>".
func (p Placeholders) Text(v string) string {
	return "tiergate-redacted-" + hex.EncodeToString(p.mac(v))[:8]
}

// Number is what a chart sees instead of a number n read from a Secret: a number of as
// many digits (at least 2), derived from n's text as Text is, so that a template's
// arithmetic and its `int` and schema types still hold while what it prints (toString,
// b64enc, sha256sum) is made of the placeholder.
func (p Placeholders) Number(n string) int64 {
	digits := max(2, min(18, len(strings.TrimLeft(n, "+-"))))
	lo := int64(1)
	for range digits - 1 {
		lo *= 10
	}
	return lo + int64(binary.BigEndian.Uint64(p.mac("number:"+n))%uint64(9*lo))
}

// SecretPlaceholder is Placeholders.Text with the process's key.
func SecretPlaceholder(v string) string { return Placeholders{}.Text(v) }

// SecretNumberPlaceholder is Placeholders.Number with the process's key.
func SecretNumberPlaceholder(n string) int64 { return Placeholders{}.Number(n) }

// PlaceholderSecrets is the client a HelmRelease's valuesFrom reads: Secrets come back with
// every string and number replaced by its placeholder (the leaves of a YAML document,
// keeping its shape), and every map key the chart does not declare too (a free-form map
// keyed by hostnames or user names is Secret data), so that no Secret value, nor anything
// a template derives from one (upper, b64enc, sha256sum, keys, toJson), reaches the
// rendered output or the report. Defaults are the chart's default values: a key at a path
// they hold, or at the top of a document (the value's name, .Values.X), is the chart's
// interface and stays. Booleans keep their value: a placeholder would turn every `if` true.
// The render is then approximate where a template depends on a Secret's exact value.
type PlaceholderSecrets struct {
	client.Client
	Defaults map[string]any
	// Mask makes the placeholders (the zero value: the process's key).
	Mask Placeholders
}

func (p PlaceholderSecrets) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := p.Client.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	if cm, ok := obj.(*corev1.ConfigMap); ok {
		// A ConfigMap key substitution wrote from a Secret holds a Secret value: taint
		// follows the value, whatever kind carries it.
		for k := range secretKeys(p.Client, key) {
			if v, ok := cm.Data[k]; ok {
				cm.Data[k] = string(p.Mask.value([]byte(v), p.Defaults))
			}
		}
		return nil
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
		sec.Data[k] = p.Mask.value(v, p.Defaults)
	}
	return nil
}

// value replaces the strings, numbers and undeclared keys of a Secret value (leaves) when
// it is a YAML mapping or list, or else the whole value.
func (p Placeholders) value(data []byte, defaults map[string]any) []byte {
	var doc any
	if err := sigsyaml.Unmarshal(data, &doc); err == nil {
		switch doc.(type) {
		case map[string]any, []any:
			if out, err := sigsyaml.Marshal(p.leaves(doc, defaults, true)); err == nil {
				return out
			}
		}
	}
	return []byte(p.Text(string(data)))
}

// leaves replaces x's strings and numbers by their placeholders and the keys
// of its maps that neither stand at the top (top) nor in declared (the chart's defaults at
// the same path) by the placeholder of the key.
func (p Placeholders) leaves(x any, declared any, top bool) any {
	switch t := x.(type) {
	case map[string]any:
		known, _ := declared.(map[string]any)
		out := make(map[string]any, len(t))
		for k, e := range t {
			d, ok := known[k]
			if !ok && !top {
				k = p.Text(k)
			}
			out[k] = p.leaves(e, d, false)
		}
		return out
	case []any:
		for i, e := range t {
			t[i] = p.leaves(e, nil, false)
		}
	case string:
		return p.Text(t)
	case float64:
		return p.Number(strconv.FormatFloat(t, 'f', -1, 64))
	case int64:
		return p.Number(strconv.FormatInt(t, 10))
	case int:
		return p.Number(strconv.Itoa(t))
	}
	return x
}

// secretKeys returns the keys of ConfigMap key that postBuild substitution wrote from a
// Secret, when c knows them (graph.SecretKeys, render's Store client).
func secretKeys(c client.Client, key client.ObjectKey) map[string]bool {
	if sk, ok := c.(graph.SecretKeys); ok {
		return sk.SecretKeys(key.Namespace, key.Name)
	}
	return nil
}

// ReadsSecrets reports whether hr has a valuesFrom Secret, or a valuesFrom ConfigMap with a
// key substitution wrote from a Secret (secretKeys of cl).
func ReadsSecrets(hr *unstructured.Unstructured, cl client.Client) bool {
	refs, _, _ := unstructured.NestedSlice(hr.Object, "spec", "valuesFrom")
	for _, v := range refs {
		ref, _ := v.(map[string]any)
		switch values.String(ref, "kind") {
		case "Secret":
			return true
		case "ConfigMap":
			if len(secretKeys(cl, client.ObjectKey{Namespace: hr.GetNamespace(), Name: values.String(ref, "name")})) > 0 {
				return true
			}
		}
	}
	return false
}

// PostRendererSecrets lists the Secret-derived texts that postBuild substitution wrote
// into hr's spec.postRenderers (fields, its Object.SecretFields): helm-controller's
// kustomize post-renderers write them into the chart's objects (helm-controller
// internal/postrender/build.go BuildPostRenderers, kustomize.go: patches and images).
func PostRendererSecrets(fields []graph.SecretField) []string {
	var out []string
	for _, f := range fields {
		if len(f.Path) < 2 || f.Path[0] != "spec" || f.Path[1] != "postRenderers" {
			continue
		}
		for _, p := range f.Parts {
			if p.Secret {
				out = append(out, p.Text)
			}
		}
	}
	return out
}

// WithPlaceholderFields returns hr with every field of fields (the fields of hr postBuild
// substitution wrote from a Secret variable, render's Object.SecretFields) under
// spec.values written with its Secret-derived parts replaced by their placeholders, as
// valuesFrom Secrets are (PlaceholderSecrets): a chart template that transforms the value
// (upper, trunc, b64enc, printf) then writes a transformation of the placeholder, never of
// the Secret. A field that substitution made a number gets a number placeholder of the same
// type (SecretNumberPlaceholder); a boolean keeps its value. It reports whether any field was
// replaced; hr itself is not changed. The placeholders are the process's (Fields: p's).
func WithPlaceholderFields(hr *unstructured.Unstructured, fields []graph.SecretField) (*unstructured.Unstructured, bool) {
	return Placeholders{}.Fields(hr, fields)
}

// Fields is WithPlaceholderFields with p's placeholders.
func (p Placeholders) Fields(hr *unstructured.Unstructured, fields []graph.SecretField) (*unstructured.Unstructured, bool) {
	var c *unstructured.Unstructured
	replaced := false
	for _, f := range fields {
		if len(f.Path) < 3 || f.Path[0] != "spec" || f.Path[1] != "values" {
			continue
		}
		if c == nil {
			c = hr.DeepCopy()
		}
		replaced = p.replace(c.Object, f) || replaced
	}
	if !replaced {
		return hr, false
	}
	return c, true
}

// replace writes f's placeholder text at its path in obj (a key renamed, a string value
// replaced); false when the path leads nowhere or to a value not a string.
func (p Placeholders) replace(obj map[string]any, f graph.SecretField) bool {
	parent, ok := graph.ValueAt(obj, f.Path[:len(f.Path)-1])
	if !ok {
		return false
	}
	text := f.Masked(p.Text)
	last := f.Path[len(f.Path)-1]
	switch q := parent.(type) {
	case map[string]any:
		v, ok := q[last]
		if !ok {
			return false
		}
		if f.Key {
			delete(q, last)
			q[text] = v
			return true
		}
		r, ok := p.of(v, f, text)
		if ok {
			q[last] = r
		}
		return ok
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(q) || f.Key {
			return false
		}
		r, ok := p.of(q[i], f, text)
		if ok {
			q[i] = r
		}
		return ok
	}
	return false
}

// of is what replaces v, the value of f: text (its placeholder text) for a string,
// Number of its text for a number (substitution made it one,
// "${PIN}" of 48213), false for anything else (a boolean keeps its value, as in
// PlaceholderSecrets).
func (p Placeholders) of(v any, f graph.SecretField, text string) (any, bool) {
	switch v.(type) {
	case string:
		return text, true
	case int, int64, float64:
		return p.Number(f.Text()), true
	}
	return nil, false
}

// ValueCopies returns, as Secret fields, the strings of hr's inline spec.values (and map
// keys) that are plain copies of a Secret value of the cluster (graph.SecretCopies of
// c; none when c does not know them): helm-controller passes the inline values to the
// chart as they are (chartutil.ChartValuesFromReferences merges them over valuesFrom), so
// what a template makes of such a value (b64enc, upper) is made of the Secret's. With
// fields substitution wrote they go to Fields, and the chart sees placeholders.
func ValueCopies(hr *unstructured.Unstructured, c client.Client) []graph.SecretField {
	sc, ok := c.(graph.SecretCopies)
	if !ok {
		return nil
	}
	var out []graph.SecretField
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				p := append(path[:len(path):len(path)], k)
				if sc.IsSecretValue(k) {
					out = append(out, graph.SecretField{Path: p, Key: true, Parts: []graph.TextPart{{Text: k, Secret: true}}})
				}
				walk(e, p)
			}
		case []any:
			for i, e := range x {
				walk(e, append(path[:len(path):len(path)], strconv.Itoa(i)))
			}
		case string:
			if sc.IsSecretValue(x) {
				out = append(out, graph.SecretField{Path: path, Parts: []graph.TextPart{{Text: x, Secret: true}}})
			}
		}
	}
	if vals, ok := hr.Object["spec"].(map[string]any); ok {
		walk(vals["values"], []string{"spec", "values"})
	}
	return out
}
