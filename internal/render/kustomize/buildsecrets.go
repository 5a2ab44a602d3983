package kustomize

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// commonShape matches a value that reads as a word ("monitoring", "PROD", "kube-system"),
// no digit in it: the same shape as review's wordLike. A Secret value of this shape that
// equals a name field of another object is most likely that name written as it is, and
// marking the name would tell the value (the review's common-word rule).
var commonShape = regexp.MustCompile(`^([A-Z]?[a-z]+|[A-Z]+)([-_.][a-z]+)*$`)

// MarkBuildSecrets marks, in objs (the output of one kustomize build, substituted), every
// string field of an object other than a Secret that holds a Secret value of the same
// build as a Secret field (Object.SecretFields): kustomize's replacements and vars copy a
// Secret's field text into other objects during the build (sigs.k8s.io/kustomize/api
// filters/replacement Filter.Filter, applyReplacement, setFieldValue: the source value is written
// as it is, or as one delimiter-separated piece of the target), and only the build's own
// resources can be a source. A field equal to a value is marked whole, except a name field
// (nameField) equal to a word-shaped value; a longer (minRedactBytes) value that is not
// word-shaped is marked wherever it stands in a field. Review then redacts these at their
// position, and substituteFrom, valuesFrom and a child's spec read them as Secret-derived.
//
// It is the fallback for a build whose replacements and vars are not all known
// (Copies.Complete false); ReplacementCopies marks the exact fields otherwise.
func MarkBuildSecrets(objs []*graph.Object) {
	values := buildSecretValues(objs)
	if len(values) == 0 {
		return
	}
	var long []string
	for v := range values {
		if len(v) >= minRedactBytes && !commonShape.MatchString(v) {
			long = append(long, v)
		}
	}
	long = sortLongestFirst(long)
	for _, o := range objs {
		if o.Body == nil || isSecret(o.ID) {
			continue
		}
		markCopies(o, values, long)
	}
}

// isSecret reports whether id names a core Secret.
func isSecret(id graph.ObjectID) bool { return id.Group == "" && id.Kind == "Secret" }

// buildSecretValues returns the non-empty values of the Secrets of objs: data as written
// (base64) and decoded, and stringData.
func buildSecretValues(objs []*graph.Object) map[string]bool {
	out := map[string]bool{}
	for _, o := range objs {
		if o.Body == nil || !isSecret(o.ID) {
			continue
		}
		if m, ok := o.Body.Object["data"].(map[string]any); ok {
			for _, v := range m {
				if s, ok := v.(string); ok && s != "" {
					out[s] = true
					if b, err := base64.StdEncoding.DecodeString(s); err == nil && len(b) > 0 {
						out[string(b)] = true
					}
				}
			}
		}
		if m, ok := o.Body.Object["stringData"].(map[string]any); ok {
			for _, v := range m {
				if s, ok := v.(string); ok && s != "" {
					out[s] = true
				}
			}
		}
	}
	return out
}

// markCopies adds to o.SecretFields its string values that equal one of values (whole) or
// hold one of long (in part), as MarkBuildSecrets says; a field substitution already
// recorded keeps its Secret-derived parts and has its literal ones split the same way.
func markCopies(o *graph.Object, values map[string]bool, long []string) {
	known := map[string]int{}
	for i, f := range o.SecretFields {
		known[fieldKey(f.Path, f.Key)] = i
	}
	changed := false
	add := func(path []string, text string) {
		parts := []graph.TextPart{{Text: text}}
		i, had := known[fieldKey(path, false)]
		if had {
			parts = o.SecretFields[i].Parts
		}
		if values[text] && !(nameField(path) && commonShape.MatchString(text)) {
			parts = []graph.TextPart{{Text: text, Secret: true}}
		} else {
			parts = splitSecrets(parts, long)
		}
		switch {
		case had:
			o.SecretFields[i].Parts = parts
		case (graph.SecretField{Parts: parts}).HasSecret():
			o.SecretFields = append(o.SecretFields, graph.SecretField{Path: slices.Clone(path), Parts: parts})
			changed = true
		}
	}
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if len(path) == 0 && (k == "apiVersion" || k == "kind") {
					continue
				}
				walk(c, appendPath(path, k))
			}
		case []any:
			for i, c := range x {
				walk(c, appendPath(path, strconv.Itoa(i)))
			}
		case string:
			add(path, x)
		}
	}
	walk(o.Body.Object, nil)
	if changed {
		slices.SortFunc(o.SecretFields, func(a, b graph.SecretField) int {
			return strings.Compare(fieldKey(a.Path, a.Key), fieldKey(b.Path, b.Key))
		})
	}
}

// nameField reports whether path ends in a field that names something (kind, apiVersion,
// *name, *namespace: metadata.name, targetNamespace, serviceAccountName), as review's
// structural does.
func nameField(path []string) bool {
	if len(path) == 0 {
		return false
	}
	l := strings.ToLower(path[len(path)-1])
	return l == "kind" || l == "apiversion" || strings.HasSuffix(l, "name") || strings.HasSuffix(l, "namespace")
}
