package helmrelease

import (
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// ReleaseFieldsNote is the graph.Release.Approximate entry of a release whose release
// name, namespace or valuesFrom targetPath the chart saw as placeholders (Release).
const ReleaseFieldsNote = "release name, namespace or valuesFrom targetPath from a Secret replaced by placeholders"

// releaseField reports whether path is a field of a HelmRelease the chart sees other than
// through spec.values: helm-controller makes .Release.Name of spec.releaseName, else
// [spec.targetNamespace-]metadata.name, .Release.Namespace of spec.targetNamespace, else
// metadata.namespace (api/v2/helmrelease_types.go GetReleaseName, GetReleaseNamespace;
// GetStorageNamespace for spec.storageNamespace), and a valuesFrom targetPath is a key of
// .Values (pkg/chartutil/values.go ChartValuesFromReferences, strvals.ParseInto).
func releaseField(path []string) bool {
	switch len(path) {
	case 2:
		return path[0] == "metadata" && (path[1] == "name" || path[1] == "namespace") ||
			path[0] == "spec" && (path[1] == "releaseName" || path[1] == "targetNamespace" || path[1] == "storageNamespace")
	case 4:
		_, err := strconv.Atoi(path[2])
		return path[0] == "spec" && path[1] == "valuesFrom" && err == nil && path[3] == "targetPath"
	}
	return false
}

// releasePaths are the fields releaseField names, but for the targetPaths (listed from hr).
var releasePaths = [][]string{{"metadata", "name"}, {"metadata", "namespace"},
	{"spec", "releaseName"}, {"spec", "targetNamespace"}, {"spec", "storageNamespace"}}

// Release returns hr with each field the chart sees as .Release.Name, .Release.Namespace
// or a valuesFrom targetPath (releaseField) written with its Secret-derived parts replaced
// by p's placeholders: the parts substitution or a kustomize replacement wrote from a
// Secret (fields, render's Object.SecretFields), and a whole field equal to a Secret value
// of the cluster (graph.SecretCopies of c: a replacement's copy). A placeholder
// ("tiergate-redacted-<8 hex>") is a valid DNS-1123 label, so a release name or namespace
// made of one stays valid. It returns the paths replaced (none: hr itself, unchanged).
// Render gives helm.ReleaseOf of the result to the chart as helm.Request.Seen and reads the
// valuesFrom targetPaths from it (helm.Values).
func (p Placeholders) Release(hr *unstructured.Unstructured, fields []graph.SecretField, c client.Client) (*unstructured.Unstructured, [][]string) {
	texts := map[string]string{} // path joined by NUL -> placeholder text
	var order [][]string
	set := func(path []string, text string) {
		k := joinPath(path)
		if _, ok := texts[k]; !ok {
			order = append(order, path)
		}
		texts[k] = text
	}
	for _, f := range fields {
		if !f.Key && releaseField(f.Path) && slices.ContainsFunc(f.Parts, func(t graph.TextPart) bool { return t.Secret }) {
			set(f.Path, f.Masked(p.Text))
		}
	}
	if sc, ok := c.(graph.SecretCopies); ok {
		for _, path := range candidatePaths(hr) {
			if v, ok := stringAt(hr.Object, path); ok && sc.IsSecretValue(v) {
				if _, done := texts[joinPath(path)]; !done {
					set(path, p.Text(v))
				}
			}
		}
	}
	if len(order) == 0 {
		return hr, nil
	}
	out := hr.DeepCopy()
	var replaced [][]string
	for _, path := range order {
		if setAt(out.Object, path, texts[joinPath(path)]) {
			replaced = append(replaced, path)
		}
	}
	if len(replaced) == 0 {
		return hr, nil
	}
	return out, replaced
}

// candidatePaths lists hr's release fields (releaseField), valuesFrom targetPaths included.
func candidatePaths(hr *unstructured.Unstructured) [][]string {
	out := slices.Clone(releasePaths)
	refs, _, _ := unstructured.NestedSlice(hr.Object, "spec", "valuesFrom")
	for i := range refs {
		out = append(out, []string{"spec", "valuesFrom", strconv.Itoa(i), "targetPath"})
	}
	return out
}

// stringAt returns the string at path in obj (list indices as decimal strings).
func stringAt(obj map[string]any, path []string) (string, bool) {
	v, ok := graph.ValueAt(obj, path)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}

// setAt writes text over the string at path in obj, lists walked too
// (spec.valuesFrom.N.targetPath); false when no string stands there.
func setAt(obj map[string]any, path []string, text string) bool {
	parent, ok := graph.ValueAt(obj, path[:len(path)-1])
	if !ok {
		return false
	}
	m, ok := parent.(map[string]any)
	if !ok {
		return false
	}
	if _, ok := m[path[len(path)-1]].(string); !ok {
		return false
	}
	m[path[len(path)-1]] = text
	return true
}

func joinPath(path []string) string {
	k := ""
	for _, e := range path {
		k += e + "\x00"
	}
	return k
}
