package sandbox

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
)

// value carries one decoded YAML/JSON value across the process boundary with its Go type:
// gob alone would turn an empty []any into nil (toJson prints null instead of []), and JSON
// would turn int64 into float64 (Helm prints 1e+06 for a float 1000000).
type value struct {
	K kind
	B bool   // kBool; kStrings: nil
	S string // string, json.Number
	I int64
	U uint64
	F float64
	L []value
	M []field // sorted by key
}

type field struct {
	Key string
	Val value
}

type kind uint8

const (
	kNil kind = iota
	kBool
	kString
	kNumber
	kInt
	kInt32
	kInt64
	kUint64
	kFloat32
	kFloat64
	kList    // []any
	kNilList // []any(nil)
	kStrings // []string
	kMap     // map[string]any
	kNilMap  // map[string]any(nil)
	kValues  // common.Values, Helm's named map
)

// encodeValue converts v, which may only hold the types YAML and JSON decoders produce
// (and common.Values), naming the path of any other.
func encodeValue(path string, v any) (value, error) {
	switch x := v.(type) {
	case nil:
		return value{K: kNil}, nil
	case bool:
		return value{K: kBool, B: x}, nil
	case string:
		return value{K: kString, S: x}, nil
	case json.Number:
		return value{K: kNumber, S: string(x)}, nil
	case int:
		return value{K: kInt, I: int64(x)}, nil
	case int32:
		return value{K: kInt32, I: int64(x)}, nil
	case int64:
		return value{K: kInt64, I: x}, nil
	case uint64:
		return value{K: kUint64, U: x}, nil
	case float32:
		return value{K: kFloat32, F: float64(x)}, nil
	case float64:
		return value{K: kFloat64, F: x}, nil
	case []string:
		out := value{K: kStrings, B: x == nil}
		for _, s := range x {
			out.L = append(out.L, value{K: kString, S: s})
		}
		return out, nil
	case []any:
		if x == nil {
			return value{K: kNilList}, nil
		}
		out := value{K: kList, L: make([]value, 0, len(x))}
		for i, e := range x {
			ev, err := encodeValue(path+"["+strconv.Itoa(i)+"]", e)
			if err != nil {
				return value{}, err
			}
			out.L = append(out.L, ev)
		}
		return out, nil
	case common.Values:
		out, err := encodeMap(path, x)
		out.K = kValues
		return out, err
	case map[string]any:
		if x == nil {
			return value{K: kNilMap}, nil
		}
		return encodeMap(path, x)
	}
	return value{}, fmt.Errorf("value at %q has type %T, which cannot be sent to the worker", path, v)
}

func encodeMap(path string, m map[string]any) (value, error) {
	out := value{K: kMap, M: make([]field, 0, len(m))}
	for k, e := range m {
		ev, err := encodeValue(path+"."+k, e)
		if err != nil {
			return value{}, err
		}
		out.M = append(out.M, field{Key: k, Val: ev})
	}
	slices.SortFunc(out.M, func(a, b field) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// decode rebuilds the Go value encodeValue read.
func (v value) decode() any {
	switch v.K {
	case kBool:
		return v.B
	case kString:
		return v.S
	case kNumber:
		return json.Number(v.S)
	case kInt:
		return int(v.I)
	case kInt32:
		return int32(v.I)
	case kInt64:
		return v.I
	case kUint64:
		return v.U
	case kFloat32:
		return float32(v.F)
	case kFloat64:
		return v.F
	case kNilList:
		return []any(nil)
	case kList:
		out := make([]any, len(v.L))
		for i, e := range v.L {
			out[i] = e.decode()
		}
		return out
	case kStrings:
		if v.B {
			return []string(nil)
		}
		out := make([]string, len(v.L))
		for i, e := range v.L {
			out[i] = e.S
		}
		return out
	case kNilMap:
		return map[string]any(nil)
	case kMap:
		return v.decodeMap()
	case kValues:
		return common.Values(v.decodeMap())
	}
	return nil
}

func (v value) decodeMap() map[string]any {
	out := make(map[string]any, len(v.M))
	for _, f := range v.M {
		out[f.Key] = f.Val.decode()
	}
	return out
}
