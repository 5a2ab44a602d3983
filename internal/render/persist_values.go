package render

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
)

// typedValue is a release's values as a stored graph keeps them, each with its Go type:
// plain JSON would give every number back as float64, where Helm's values hold int64
// (strvals), float64 (YAML) and json.Number, and review compares base and head values
// by type (releases.go changedLeaves). Only the types YAML and JSON decoders give (and
// Helm's common.Values) are kept; any other fails the graph's store (never a wrong read).
type typedValue struct {
	K valueKind    `json:"k"`
	B bool         `json:"b,omitempty"`
	S string       `json:"s,omitempty"` // string, json.Number
	I int64        `json:"i,omitempty"`
	U uint64       `json:"u,omitempty"`
	F float64      `json:"f,omitempty"`
	L []typedValue `json:"l,omitempty"`
	M []typedField `json:"m,omitempty"` // sorted by key
}

type typedField struct {
	Key string     `json:"k"`
	Val typedValue `json:"v"`
}

type valueKind uint8

const (
	vNil valueKind = iota
	vBool
	vString
	vNumber
	vInt
	vInt32
	vInt64
	vUint64
	vFloat32
	vFloat64
	vList    // []any
	vNilList // []any(nil)
	vMap     // map[string]any
	vNilMap  // map[string]any(nil)
	vValues  // common.Values
)

// encodeTyped converts v, naming the path of a value of any other type than those above.
func encodeTyped(path string, v any) (typedValue, error) {
	switch x := v.(type) {
	case nil:
		return typedValue{K: vNil}, nil
	case bool:
		return typedValue{K: vBool, B: x}, nil
	case string:
		return typedValue{K: vString, S: x}, nil
	case json.Number:
		return typedValue{K: vNumber, S: string(x)}, nil
	case int:
		return typedValue{K: vInt, I: int64(x)}, nil
	case int32:
		return typedValue{K: vInt32, I: int64(x)}, nil
	case int64:
		return typedValue{K: vInt64, I: x}, nil
	case uint64:
		return typedValue{K: vUint64, U: x}, nil
	case float32:
		return typedValue{K: vFloat32, F: float64(x)}, nil
	case float64:
		return typedValue{K: vFloat64, F: x}, nil
	case []any:
		if x == nil {
			return typedValue{K: vNilList}, nil
		}
		out := typedValue{K: vList, L: make([]typedValue, 0, len(x))}
		for i, e := range x {
			ev, err := encodeTyped(fmt.Sprintf("%s[%d]", path, i), e)
			if err != nil {
				return typedValue{}, err
			}
			out.L = append(out.L, ev)
		}
		return out, nil
	case common.Values:
		out, err := encodeTypedMap(path, x)
		out.K = vValues
		return out, err
	case map[string]any:
		if x == nil {
			return typedValue{K: vNilMap}, nil
		}
		return encodeTypedMap(path, x)
	}
	return typedValue{}, fmt.Errorf("value at %q has type %T, which a stored graph does not keep", path, v)
}

func encodeTypedMap(path string, m map[string]any) (typedValue, error) {
	out := typedValue{K: vMap, M: make([]typedField, 0, len(m))}
	for k, e := range m {
		ev, err := encodeTyped(path+"."+k, e)
		if err != nil {
			return typedValue{}, err
		}
		out.M = append(out.M, typedField{Key: k, Val: ev})
	}
	slices.SortFunc(out.M, func(a, b typedField) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// decode rebuilds the value encodeTyped read; false for a kind it never writes.
func (v typedValue) decode() (any, bool) {
	switch v.K {
	case vNil:
		return nil, true
	case vBool:
		return v.B, true
	case vString:
		return v.S, true
	case vNumber:
		return json.Number(v.S), true
	case vInt:
		return int(v.I), true
	case vInt32:
		return int32(v.I), true
	case vInt64:
		return v.I, true
	case vUint64:
		return v.U, true
	case vFloat32:
		return float32(v.F), true
	case vFloat64:
		return v.F, true
	case vNilList:
		return []any(nil), true
	case vList:
		out := make([]any, len(v.L))
		for i, e := range v.L {
			d, ok := e.decode()
			if !ok {
				return nil, false
			}
			out[i] = d
		}
		return out, true
	case vNilMap:
		return map[string]any(nil), true
	case vMap, vValues:
		out := make(map[string]any, len(v.M))
		for _, f := range v.M {
			d, ok := f.Val.decode()
			if !ok {
				return nil, false
			}
			out[f.Key] = d
		}
		if v.K == vValues {
			return common.Values(out), true
		}
		return out, true
	}
	return nil, false
}
