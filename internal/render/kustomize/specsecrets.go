package kustomize

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// buildFields are the spec fields of a Flux Kustomization whose text kustomize-controller
// writes into the kustomization.yaml it builds (fluxcd/pkg kustomize_generator.go
// Generator.WriteFile: targetNamespace, namePrefix, nameSuffix, patches, components,
// patchesStrategicMerge, patchesJson6902, images). commonMetadata is applied later, at
// apply time, which render does not do.
var buildFields = map[string]bool{
	"targetNamespace": true, "namePrefix": true, "nameSuffix": true, "patches": true, "components": true,
	"patchesStrategicMerge": true, "patchesJson6902": true, "images": true,
}

// SpecSecrets lists the Secret-derived texts of ks's build fields (buildFields), as its
// parent's substitution wrote them (ks.SecretFields), longest first: the objects ks builds
// hold them wherever the build put them (a name suffix, an image tag, a patched value).
func SpecSecrets(ks *graph.Kustomization) []string {
	var out []string
	for _, f := range ks.SecretFields {
		if len(f.Path) < 2 || f.Path[0] != "spec" || !buildFields[f.Path[1]] {
			continue
		}
		for _, p := range f.Parts {
			if p.Secret {
				out = append(out, p.Text)
			}
		}
	}
	return sortLongestFirst(out)
}

// MarkSpecSecrets adds to o.SecretFields every string of o (values and map keys, but not
// apiVersion and kind) that holds one of secrets (SpecSecrets of its Kustomization), with
// those occurrences as Secret-derived parts; a field substitution already recorded keeps
// its parts, its literal ones split the same way. Review then redacts them at their
// position whatever their length, as it does substituted fields.
func MarkSpecSecrets(o *graph.Object, secrets []string) {
	if len(secrets) == 0 || o.Body == nil {
		return
	}
	known := map[string]int{}
	for i, f := range o.SecretFields {
		known[fieldKey(f.Path, f.Key)] = i
	}
	add := func(path []string, key bool, text string) {
		if i, ok := known[fieldKey(path, key)]; ok {
			o.SecretFields[i].Parts = splitSecrets(o.SecretFields[i].Parts, secrets)
			return
		}
		parts := splitSecrets([]graph.TextPart{{Text: text}}, secrets)
		if (graph.SecretField{Parts: parts}).HasSecret() {
			o.SecretFields = append(o.SecretFields, graph.SecretField{Path: slices.Clone(path), Key: key, Parts: parts})
		}
	}
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				p := appendPath(path, k)
				if len(path) == 0 && (k == "apiVersion" || k == "kind") {
					continue
				}
				add(p, true, k)
				walk(c, p)
			}
		case []any:
			for i, c := range x {
				walk(c, appendPath(path, strconv.Itoa(i)))
			}
		case string:
			add(path, false, x)
		}
	}
	walk(o.Body.Object, nil)
	slices.SortFunc(o.SecretFields, func(a, b graph.SecretField) int {
		return strings.Compare(fieldKey(a.Path, a.Key), fieldKey(b.Path, b.Key))
	})
}

// fieldKey names a field's path (and whether it is the key) as one string.
func fieldKey(path []string, key bool) string {
	return strings.Join(path, "\x00") + "\x00" + strconv.FormatBool(key)
}

// splitSecrets splits the literal parts of parts at each occurrence of a text of secrets
// (longest first), which become Secret-derived parts.
func splitSecrets(parts []graph.TextPart, secrets []string) []graph.TextPart {
	var out []graph.TextPart
	for _, p := range parts {
		if p.Secret {
			out = joinParts(out, p)
			continue
		}
		out = joinParts(out, splitText(p.Text, secrets)...)
	}
	return out
}

// splitText cuts text at the leftmost, longest occurrence of any of secrets.
func splitText(text string, secrets []string) []graph.TextPart {
	var out []graph.TextPart
	for text != "" {
		at, n := -1, 0
		for _, s := range secrets {
			if s == "" {
				continue
			}
			if i := strings.Index(text, s); i >= 0 && (at < 0 || i < at || i == at && len(s) > n) {
				at, n = i, len(s)
			}
		}
		if at < 0 {
			return joinParts(out, graph.TextPart{Text: text})
		}
		out = joinParts(out, graph.TextPart{Text: text[:at]}, graph.TextPart{Text: text[at : at+n], Secret: true})
		text = text[at+n:]
	}
	return out
}
