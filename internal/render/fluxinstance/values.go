package fluxinstance

import (
	"cmp"
	"encoding/base64"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/render/values"
)

// HelmValues returns the values helm-controller installs a HelmRelease with: the chart's
// defaults under the merge of spec.valuesFrom, in order, and spec.values last
// (fluxcd/pkg/chartutil ChartValuesFromReferences, which helm-controller's reconcile
// calls; MergeMaps for each merge). A valuesFrom entry reads key valuesKey (default
// values.yaml) of the ConfigMap or Secret of that name in the release's namespace among
// objs; with targetPath the entry's text is set at that dotted path over the inline values
// merged so far. A reference objs cannot resolve is skipped here: when the rest names no
// sync path, discovery asks MissingValues, and the root's path is unknown.
func HelmValues(hr *unstructured.Unstructured, objs []*graph.Object, defaults map[string]any) map[string]any {
	inline, _, _ := unstructured.NestedMap(hr.Object, "spec", "values")
	refs, _, _ := unstructured.NestedSlice(hr.Object, "spec", "valuesFrom")
	result := map[string]any{}
	for _, r := range refs {
		ref, _ := r.(map[string]any)
		kind, name := values.String(ref, "kind"), values.String(ref, "name")
		key := values.String(ref, "valuesKey")
		if key == "" {
			key = "values.yaml"
		}
		data, ok := valuesData(objs, kind, hr.GetNamespace(), name, key)
		if !ok {
			continue
		}
		if tp := values.String(ref, "targetPath"); tp != "" {
			result = values.Merge(result, inline)
			setPath(result, tp, strings.Trim(data, `'"`))
			continue
		}
		var v map[string]any
		if err := sigsyaml.Unmarshal([]byte(data), &v); err != nil {
			continue // helm-controller fails the release: it makes no FluxInstance
		}
		result = values.Merge(result, v)
	}
	return values.Merge(defaults, values.Merge(result, inline))
}

// MissingValues lists the valuesFrom references of hr ("ConfigMap name") that objs do not
// hold: made at runtime or out of band, their values are unknown.
func MissingValues(hr *unstructured.Unstructured, objs []*graph.Object) []string {
	refs, _, _ := unstructured.NestedSlice(hr.Object, "spec", "valuesFrom")
	var out []string
	for _, r := range refs {
		ref, _ := r.(map[string]any)
		kind, name := values.String(ref, "kind"), values.String(ref, "name")
		if _, ok := valuesData(objs, kind, hr.GetNamespace(), name, cmp.Or(values.String(ref, "valuesKey"), "values.yaml")); !ok {
			out = append(out, kind+" "+name)
		}
	}
	return out
}

// valuesData is the text under key of the ConfigMap or Secret ns/name among objs. Objects
// without a namespace get the Kustomization's, as the HelmRelease does, so an empty
// namespace on either side matches.
func valuesData(objs []*graph.Object, kind, ns, name, key string) (string, bool) {
	for _, o := range objs {
		u := o.Body
		if o.ID.Group != "" || o.ID.Kind != kind || u.GetName() != name {
			continue
		}
		if ns != "" && u.GetNamespace() != "" && u.GetNamespace() != ns {
			continue
		}
		switch kind {
		case "ConfigMap":
			s, ok, _ := unstructured.NestedString(u.Object, "data", key)
			return s, ok
		case "Secret":
			if s, ok, _ := unstructured.NestedString(u.Object, "stringData", key); ok {
				return s, true
			}
			s, ok, _ := unstructured.NestedString(u.Object, "data", key)
			if !ok {
				return "", false
			}
			b, err := base64.StdEncoding.DecodeString(s)
			return string(b), err == nil
		}
	}
	return "", false
}

// setPath sets value at the dotted path p of m, making maps on the way (Helm's strvals
// for a plain a.b.c path; list indexes and escaped dots are not read).
func setPath(m map[string]any, p, value string) {
	parts := strings.Split(p, ".")
	for _, k := range parts[:len(parts)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[parts[len(parts)-1]] = value
}
