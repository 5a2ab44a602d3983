package fluxschema

import (
	"reflect"
	"strings"
)

// JSONKind names what a JSON value must be to decode into t, as a schema says it ("a list",
// "an object", "an integer"…); "another type" for a nil t.
func JSONKind(t reflect.Type) string {
	if t == nil {
		return "another type"
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Bool:
		return "a boolean"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return JSONKind(t.Elem())
	}
	return "a " + t.String()
}

// Article puts "a" or "an" before a JSON value kind (json.UnmarshalTypeError.Value), and
// calls an array a list.
func Article(kind string) string {
	if kind == "array" {
		return "a list"
	}
	if kind != "" && strings.ContainsAny(kind[:1], "aeiou") {
		return "an " + kind
	}
	return "a " + kind
}
