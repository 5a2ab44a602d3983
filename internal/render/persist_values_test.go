package render

import (
	"encoding/json"
	"reflect"
	"testing"

	"helm.sh/helm/v4/pkg/chart/common"
)

// TestTypedValuesKeepGoTypes stores release values through JSON, as a stored graph does,
// and reads back every Go type: int64 stays int64 (plain JSON gives float64), a nil list
// stays nil and an empty one empty, common.Values stays Helm's named map.
func TestTypedValuesKeepGoTypes(t *testing.T) {
	in := map[string]any{
		"replicas": int64(3), "ratio": 1.5, "whole": float64(1000000), "n": json.Number("12"),
		"i": 7, "i32": int32(-2), "u": uint64(1 << 63), "f32": float32(0.25),
		"name": "app", "on": true, "off": false, "none": nil,
		"empty": []any{}, "nilList": []any(nil), "nilMap": map[string]any(nil),
		"list":   []any{int64(1), "two", map[string]any{"three": 3.0}},
		"values": common.Values{"image": map[string]any{"tag": "v1"}},
	}
	tv, err := encodeTyped("values", in)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(tv)
	if err != nil {
		t.Fatal(err)
	}
	var back typedValue
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	got, ok := back.decode()
	if !ok {
		t.Fatal("decode failed")
	}
	if !reflect.DeepEqual(got, in) {
		t.Errorf("values changed through the store:\ngot  %#v\nwant %#v", got, in)
	}
}

// TestTypedValuesRefuseOtherTypes: a type the store does not keep names its path, and a
// kind the store never writes does not decode.
func TestTypedValuesRefuseOtherTypes(t *testing.T) {
	_, err := encodeTyped("values", map[string]any{"a": []any{struct{}{}}})
	want := `value at "values.a[0]" has type struct {}, which a stored graph does not keep`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if v, ok := (typedValue{K: 99}).decode(); ok || v != nil {
		t.Errorf("kind 99 decodes to %#v, %v", v, ok)
	}
	if _, ok := (typedValue{K: vList, L: []typedValue{{K: 99}}}).decode(); ok {
		t.Error("a list holding kind 99 decodes")
	}
}
