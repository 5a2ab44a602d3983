// Package fluxschema checks Flux objects against what their CRDs' OpenAPI schemas
// constrain: the types, lengths, patterns and enums that the kubebuilder:validation markers
// of fluxcd/helm-controller api/v2/helmrelease_types.go and fluxcd/kustomize-controller
// api/v1/kustomization_types.go put into the CRDs. The API server rejects an object that
// breaks one of them, so whatever applies it fails. Only what a schema states is checked:
// what the controllers refuse later (a chart that does not exist) is other rules' business.
package fluxschema

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
)

// Violation is one schema constraint an object breaks.
type Violation struct {
	// Field is the path of the field at fault, "spec.releaseName" or
	// "spec.postBuild.substituteFrom[0].kind"; Top its first element under spec ("releaseName").
	Field, Top string
	// Msg says what is wrong, starting with Field: "spec.releaseName: at most 53
	// characters, got 60".
	Msg string
}

// field is one constrained field: its path (a "[]" element stands for every list item) and
// what the schema says of it.
type field struct {
	path     string
	typ      string // "string", "boolean", "integer", "object", "array"; "" any
	required bool   // within its parent, when the parent is set
	min, max int    // string length bounds; 0 is none
	pattern  *regexp.Regexp
	enum     []string
}

// duration is the pattern of every metav1.Duration field of the Flux APIs
// (+kubebuilder:validation:Pattern="^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$").
var duration = regexp.MustCompile(`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`)

func dur(path string) field { return field{path: path, typ: "string", pattern: duration} }
func str(path string, min, max int) field {
	return field{path: path, typ: "string", min: min, max: max}
}
func enum(path string, values ...string) field { return field{path: path, typ: "string", enum: values} }
func typed(path, typ string) field             { return field{path: path, typ: typ} }

// Check returns the violations of obj (an object's JSON: apiVersion, kind, spec …), in
// the order of the schema's fields; nil for a kind it has no schema for.
func Check(group, kind string, obj map[string]any) []Violation {
	fields, extra := schemaOf(group, kind)
	if fields == nil {
		return nil
	}
	var out []Violation
	for _, f := range fields {
		out = append(out, check(obj, f)...)
	}
	if extra != nil {
		out = append(out, extra(obj)...)
	}
	return out
}

func schemaOf(group, kind string) ([]field, func(map[string]any) []Violation) {
	switch group + "/" + kind {
	case "helm.toolkit.fluxcd.io/HelmRelease":
		return helmRelease, chartXorChartRef
	case "kustomize.toolkit.fluxcd.io/Kustomization":
		return kustomization, nil
	}
	return nil, nil
}

// check walks obj along f.path and checks every value found there.
func check(obj map[string]any, f field) []Violation {
	parts := strings.Split(f.path, ".")
	var out []Violation
	var walk func(v map[string]any, i int, at string)
	walk = func(v map[string]any, i int, at string) {
		name, list := strings.CutSuffix(parts[i], "[]")
		here := join(at, name)
		val, ok := v[name]
		if !ok || val == nil {
			if f.required && i == len(parts)-1 {
				out = append(out, violation(here, "is required"))
			}
			return
		}
		if i == len(parts)-1 {
			out = append(out, value(here, val, f)...)
			return
		}
		if list {
			items, ok := val.([]any)
			if !ok {
				return // the list's own entry says it is no list
			}
			for j, it := range items {
				if m, ok := it.(map[string]any); ok {
					walk(m, i+1, fmt.Sprintf("%s[%d]", here, j))
				}
			}
			return
		}
		if m, ok := val.(map[string]any); ok {
			walk(m, i+1, here)
		}
	}
	walk(obj, 0, "")
	return out
}

func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// value checks one value against f.
func value(at string, v any, f field) []Violation {
	if f.typ != "" && typeOf(v) != f.typ && (f.typ != "integer" || !integral(v)) {
		return []Violation{violation(at, fmt.Sprintf("must be %s, got %s", article(f.typ), article(typeOf(v))))}
	}
	s, ok := v.(string)
	if !ok {
		return nil
	}
	n := len([]rune(s))
	switch {
	case f.min == 1 && n == 0:
		return []Violation{violation(at, "must not be empty")}
	case f.min > 0 && n < f.min:
		return []Violation{violation(at, fmt.Sprintf("must be at least %d characters, got %d", f.min, n))}
	case f.max > 0 && n > f.max:
		return []Violation{violation(at, fmt.Sprintf("may be at most %d characters, got %d (%q)", f.max, n, s))}
	case f.pattern != nil && !f.pattern.MatchString(s):
		return []Violation{violation(at, fmt.Sprintf("%q is not a duration such as 30s, 5m or 1h30m (the schema's pattern %s)", s, f.pattern))}
	case f.enum != nil && !slices.Contains(f.enum, s):
		return []Violation{violation(at, fmt.Sprintf("%q is not one of %s", s, strings.Join(f.enum, ", ")))}
	}
	return nil
}

func violation(at, msg string) Violation {
	top := strings.TrimPrefix(at, "spec.")
	if i := strings.IndexAny(top, ".["); i >= 0 {
		top = top[:i]
	}
	return Violation{Field: at, Top: top, Msg: at + ": " + msg}
}

// typeOf names v's JSON type as the OpenAPI schema does.
func typeOf(v any) string {
	switch x := v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case int, int32, int64:
		return "integer"
	case float64:
		if integral(x) {
			return "integer"
		}
	}
	return "number"
}

// integral reports whether v is a whole number (YAML 3 and 3.0 both decode to one).
func integral(v any) bool {
	switch x := v.(type) {
	case int, int32, int64:
		return true
	case float64:
		return x == math.Trunc(x) && !math.IsInf(x, 0)
	}
	return false
}

func article(typ string) string {
	switch typ {
	case "array":
		return "a list"
	case "object", "integer":
		return "an " + typ
	}
	return "a " + typ
}
