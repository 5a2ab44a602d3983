package helmrelease

import (
	"context"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/values"
)

// MissingValuesFrom names the first non-optional valuesFrom source of hr that cl does not
// hold ("ConfigMap apps/values"), "" when all are there: helm-controller fails the release
// on it, and here it is unknown whether it exists at runtime.
func MissingValuesFrom(ctx context.Context, hr *unstructured.Unstructured, cl client.Client) string {
	refs, _, _ := unstructured.NestedSlice(hr.Object, "spec", "valuesFrom")
	for _, v := range refs {
		ref, _ := v.(map[string]any)
		if opt, _ := ref["optional"].(bool); opt {
			continue
		}
		kind, name := values.String(ref, "kind"), values.String(ref, "name")
		var obj client.Object = &corev1.ConfigMap{}
		if kind == "Secret" {
			obj = &corev1.Secret{}
		}
		if err := cl.Get(ctx, client.ObjectKey{Namespace: hr.GetNamespace(), Name: name}, obj); apierrors.IsNotFound(err) {
			return kind + " " + hr.GetNamespace() + "/" + name
		}
	}
	return ""
}

// SecretValues lists the values of the valuesFrom Secrets of hr, and of the keys of its
// valuesFrom ConfigMaps substitution wrote from a Secret (secretKeys), longest first: review
// redacts them in the rendered objects as it redacts substituted Secret values.
func SecretValues(ctx context.Context, hr *unstructured.Unstructured, cl client.Client) []string {
	refs, _, _ := unstructured.NestedSlice(hr.Object, "spec", "valuesFrom")
	seen := map[string]bool{}
	var out []string
	for _, v := range refs {
		ref, _ := v.(map[string]any)
		if values.String(ref, "kind") == "ConfigMap" {
			key := client.ObjectKey{Namespace: hr.GetNamespace(), Name: values.String(ref, "name")}
			cm := &corev1.ConfigMap{}
			if keys := secretKeys(cl, key); len(keys) > 0 && cl.Get(ctx, key, cm) == nil {
				for k := range keys {
					leaves(cm.Data[k], func(s string) {
						if len(s) >= 4 && !seen[s] {
							seen[s] = true
							out = append(out, s)
						}
					})
				}
			}
			continue
		}
		if values.String(ref, "kind") != "Secret" {
			continue
		}
		sec := &corev1.Secret{}
		if err := cl.Get(ctx, client.ObjectKey{Namespace: hr.GetNamespace(), Name: values.String(ref, "name")}, sec); err != nil {
			continue
		}
		for _, d := range sec.Data {
			leaves(string(d), func(s string) {
				if len(s) >= 4 && !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			})
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) || len(out[i]) == len(out[j]) && out[i] < out[j] })
	return out
}

// leaves calls fn with the text of a Secret value and, when it is a YAML document, every
// string leaf in it: a values.yaml key's value is what reaches a template.
func leaves(text string, fn func(string)) {
	fn(strings.TrimSpace(text))
	var v any
	if err := sigsyaml.Unmarshal([]byte(text), &v); err != nil {
		return
	}
	var walk func(any)
	walk = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for _, e := range t {
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		case string:
			fn(t)
		}
	}
	walk(v)
}
