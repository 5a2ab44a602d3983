package sandbox

import (
	"fmt"

	"github.com/tiergate/tiergate/internal/render/typedvalue"
)

// value carries one decoded YAML/JSON value across the process boundary with its Go type
// (typedvalue: gob alone would turn an empty []any into nil, and toJson print null
// instead of []).
type value = typedvalue.Value

// encodeValue is typedvalue.Encode, saying why a value of another type fails the render.
func encodeValue(path string, v any) (value, error) {
	out, err := typedvalue.Encode(path, v)
	if err != nil {
		return value{}, fmt.Errorf("%w, which cannot be sent to the worker", err)
	}
	return out, nil
}

// decodeValue rebuilds what encodeValue read; nil for a kind it never writes.
func decodeValue(v value) any {
	out, _ := v.Decode()
	return out
}
