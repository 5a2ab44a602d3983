// Package typedvalue encodes a decoded YAML or JSON value with its Go types, so that it
// survives a trip through JSON (a stored graph, render.Cache.Persist) or gob (the Helm
// sandbox's wire to its worker) unchanged: plain JSON gives every number back as float64,
// where Helm's values hold int64 (strvals), float64 (YAML) and json.Number, and review
// compares base and head values by type; gob alone turns an empty []any into nil (toJson
// then prints null instead of []). Only the types YAML and JSON decoders give, []string
// and Helm's common.Values are kept.
package typedvalue

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
)

// Value is one typed value. K says which field holds it; a list's elements are in L, a
// map's entries in M sorted by key. The JSON names are short: stored graphs hold many.
type Value struct {
	K Kind    `json:"k"`
	B bool    `json:"b,omitempty"` // Bool; Strings: the slice is nil
	S string  `json:"s,omitempty"` // String, Number
	I int64   `json:"i,omitempty"` // Int, Int32, Int64
	U uint64  `json:"u,omitempty"` // Uint64
	F float64 `json:"f,omitempty"` // Float32, Float64
	L []Value `json:"l,omitempty"` // List, Strings
	M []Field `json:"m,omitempty"` // Map, Values; sorted by Key
}

// Field is one entry of a map Value.
type Field struct {
	Key string `json:"k"`
	Val Value  `json:"v"`
}

// Kind is the Go type a Value decodes to.
type Kind uint8

// The kinds; their numbers are part of the encoding.
const (
	Nil     Kind = iota
	Bool         // bool
	String       // string
	Number       // json.Number
	Int          // int
	Int32        // int32
	Int64        // int64
	Uint64       // uint64
	Float32      // float32
	Float64      // float64
	List         // []any
	NilList      // []any(nil)
	Strings      // []string, nil or not
	Map          // map[string]any
	NilMap       // map[string]any(nil)
	Values       // common.Values, Helm's named map
)

// TypeError is the error of Encode for a value of a type it does not keep.
type TypeError struct {
	Path  string // where the value is, from Encode's path: "values.a[1]"
	Value any
}

func (e *TypeError) Error() string {
	return fmt.Sprintf("value at %q has type %T", e.Path, e.Value)
}

// Encode converts v, naming its place path (extended with ".key" and "[i]" below it) in a
// *TypeError for a value of any type but those of Kind.
func Encode(path string, v any) (Value, error) {
	switch x := v.(type) {
	case nil:
		return Value{K: Nil}, nil
	case bool:
		return Value{K: Bool, B: x}, nil
	case string:
		return Value{K: String, S: x}, nil
	case json.Number:
		return Value{K: Number, S: string(x)}, nil
	case int:
		return Value{K: Int, I: int64(x)}, nil
	case int32:
		return Value{K: Int32, I: int64(x)}, nil
	case int64:
		return Value{K: Int64, I: x}, nil
	case uint64:
		return Value{K: Uint64, U: x}, nil
	case float32:
		return Value{K: Float32, F: float64(x)}, nil
	case float64:
		return Value{K: Float64, F: x}, nil
	case []string:
		out := Value{K: Strings, B: x == nil}
		for _, s := range x {
			out.L = append(out.L, Value{K: String, S: s})
		}
		return out, nil
	case []any:
		return encodeList(path, x)
	case common.Values:
		out, err := encodeMap(path, x)
		out.K = Values
		return out, err
	case map[string]any:
		if x == nil {
			return Value{K: NilMap}, nil
		}
		return encodeMap(path, x)
	}
	return Value{}, &TypeError{Path: path, Value: v}
}

func encodeList(path string, l []any) (Value, error) {
	if l == nil {
		return Value{K: NilList}, nil
	}
	out := Value{K: List, L: make([]Value, 0, len(l))}
	for i, e := range l {
		ev, err := Encode(path+"["+strconv.Itoa(i)+"]", e)
		if err != nil {
			return Value{}, err
		}
		out.L = append(out.L, ev)
	}
	return out, nil
}

func encodeMap(path string, m map[string]any) (Value, error) {
	out := Value{K: Map, M: make([]Field, 0, len(m))}
	for k, e := range m {
		ev, err := Encode(path+"."+k, e)
		if err != nil {
			return Value{}, err
		}
		out.M = append(out.M, Field{Key: k, Val: ev})
	}
	slices.SortFunc(out.M, func(a, b Field) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// Decode rebuilds the value Encode read; false when v, or a value inside it, has a kind
// Encode never writes (a damaged store).
func (v Value) Decode() (any, bool) {
	switch v.K {
	case Nil:
		return nil, true
	case Bool:
		return v.B, true
	case String:
		return v.S, true
	case Number:
		return json.Number(v.S), true
	case Int:
		return int(v.I), true
	case Int32:
		return int32(v.I), true
	case Int64:
		return v.I, true
	case Uint64:
		return v.U, true
	case Float32:
		return float32(v.F), true
	case Float64:
		return v.F, true
	case NilList:
		return []any(nil), true
	case List:
		return v.decodeList()
	case Strings:
		return v.decodeStrings()
	case NilMap:
		return map[string]any(nil), true
	case Map:
		if m, ok := v.decodeMap(); ok {
			return m, true
		}
		return nil, false
	case Values:
		if m, ok := v.decodeMap(); ok {
			return common.Values(m), true
		}
		return nil, false
	}
	return nil, false
}

func (v Value) decodeList() (any, bool) {
	out := make([]any, len(v.L))
	for i, e := range v.L {
		d, ok := e.Decode()
		if !ok {
			return nil, false
		}
		out[i] = d
	}
	return out, true
}

func (v Value) decodeStrings() (any, bool) {
	if v.B {
		return []string(nil), true
	}
	out := make([]string, len(v.L))
	for i, e := range v.L {
		if e.K != String {
			return nil, false
		}
		out[i] = e.S
	}
	return out, true
}

func (v Value) decodeMap() (map[string]any, bool) {
	out := make(map[string]any, len(v.M))
	for _, f := range v.M {
		d, ok := f.Val.Decode()
		if !ok {
			return nil, false
		}
		out[f.Key] = d
	}
	return out, true
}
