package forgetest

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"unicode/utf8"
)

// validate checks a decoded JSON value against a schema: type, enum, required,
// properties, additionalProperties: false, items, min/maxItems, min/maxLength, allOf,
// anyOf and oneOf (exactly one). Formats and patterns are not checked. JSON null is
// accepted where the schema is nullable, and always in Swagger 2 descriptions, whose Go
// servers decode null as the zero value.
func (s *spec) validate(schema, v any, at string) error {
	sch, ok := s.resolve(schema).(map[string]any)
	if !ok {
		return nil // no schema: anything goes
	}
	if v == nil {
		if sch["nullable"] == true || sch["x-nullable"] == true || s.swagger2 {
			return nil
		}
		return fmt.Errorf("%s: null is not allowed", at)
	}
	if err := s.combinators(sch, v, at); err != nil {
		return err
	}
	if enum, ok := sch["enum"].([]any); ok && !inEnum(enum, v) {
		return fmt.Errorf("%s: %v is not one of %v", at, v, enum)
	}
	if typ, _ := sch["type"].(string); typ != "" && !hasType(typ, v) {
		return fmt.Errorf("%s: want %s, got %T", at, typ, v)
	}
	switch v := v.(type) {
	case map[string]any:
		return s.validateObject(sch, v, at)
	case []any:
		if n, ok := sch["maxItems"].(float64); ok && float64(len(v)) > n {
			return fmt.Errorf("%s: %d items, at most %v allowed", at, len(v), n)
		}
		if n, ok := sch["minItems"].(float64); ok && float64(len(v)) < n {
			return fmt.Errorf("%s: %d items, at least %v required", at, len(v), n)
		}
		for i, item := range v {
			if err := s.validate(sch["items"], item, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case string:
		n := float64(utf8.RuneCountInString(v))
		if max, ok := sch["maxLength"].(float64); ok && n > max {
			return fmt.Errorf("%s: %v characters, at most %v allowed", at, n, max)
		}
		if min, ok := sch["minLength"].(float64); ok && n < min {
			return fmt.Errorf("%s: %v characters, at least %v required", at, n, min)
		}
	}
	return nil
}

func (s *spec) combinators(sch map[string]any, v any, at string) error {
	for _, sub := range list(sch["allOf"]) {
		if err := s.validate(sub, v, at); err != nil {
			return err
		}
	}
	if alts := list(sch["anyOf"]); len(alts) > 0 && s.matching(alts, v, at) == 0 {
		return fmt.Errorf("%s: matches none of anyOf", at)
	}
	if alts := list(sch["oneOf"]); len(alts) > 0 {
		if n := s.matching(alts, v, at); n != 1 {
			return fmt.Errorf("%s: matches %d of oneOf, want exactly 1", at, n)
		}
	}
	return nil
}

func (s *spec) matching(alts []any, v any, at string) int {
	n := 0
	for _, alt := range alts {
		if s.validate(alt, v, at) == nil {
			n++
		}
	}
	return n
}

func (s *spec) validateObject(sch map[string]any, v map[string]any, at string) error {
	for _, r := range list(sch["required"]) {
		name, _ := r.(string)
		if _, ok := v[name]; !ok {
			return fmt.Errorf("%s: required field %q is missing", at, name)
		}
	}
	props, _ := sch["properties"].(map[string]any)
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		sub, known := props[k]
		if !known {
			if sch["additionalProperties"] == false {
				return fmt.Errorf("%s: unknown field %q", at, k)
			}
			sub = sch["additionalProperties"]
		}
		if err := s.validate(sub, v[k], at+"."+k); err != nil {
			return err
		}
	}
	return nil
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func inEnum(enum []any, v any) bool {
	for _, e := range enum {
		if reflect.DeepEqual(e, v) {
			return true
		}
	}
	return false
}

func hasType(typ string, v any) bool {
	switch typ {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	}
	return true
}
