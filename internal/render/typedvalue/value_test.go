package typedvalue

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v4/pkg/chart/common"
)

// every holds each kind Encode keeps, nil and empty slices and maps apart.
var every = map[string]any{
	"nil": nil, "on": true, "off": false, "name": "app", "n": json.Number("1e3"),
	"i": 7, "i32": int32(-2), "i64": int64(1000000), "u": uint64(1 << 63),
	"f32": float32(0.25), "f64": 1e6, "ratio": 1.5,
	"list": []any{int64(1), "two", []any{}, map[string]any{"three": 3.0}}, "nilList": []any(nil),
	"strings": []string{"a", ""}, "emptyStrings": []string{}, "nilStrings": []string(nil),
	"map": map[string]any{"empty": map[string]any{}}, "nilMap": map[string]any(nil),
	"values": common.Values{"image": map[string]any{"tag": "v1"}},
}

// TestRoundTripJSON: through JSON, as a stored graph keeps release values, every Go type
// comes back (plain JSON would give int64 back as float64).
func TestRoundTripJSON(t *testing.T) {
	v, err := Encode("values", every)
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var back Value
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	assertDecodes(t, back, every)
}

// TestRoundTripGob: through gob, as the Helm sandbox sends values to its worker, an empty
// list stays empty (gob alone gives nil).
func TestRoundTripGob(t *testing.T) {
	v, err := Encode("values", every)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		t.Fatal(err)
	}
	var back Value
	if err := gob.NewDecoder(&buf).Decode(&back); err != nil {
		t.Fatal(err)
	}
	assertDecodes(t, back, every)
}

func assertDecodes(t *testing.T, v Value, want any) {
	t.Helper()
	got, ok := v.Decode()
	if !ok {
		t.Fatal("decode failed")
	}
	// cmp tells nil from empty slices and maps, and int64 from float64.
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// TestEncodeRefusesOtherTypes: a type Encode does not keep is a *TypeError naming its path.
func TestEncodeRefusesOtherTypes(t *testing.T) {
	_, err := Encode("values", map[string]any{"a": []any{1, struct{}{}}})
	want := `value at "values.a[1]" has type struct {}`
	var te *TypeError
	if !errors.As(err, &te) || err.Error() != want || te.Path != "values.a[1]" {
		t.Errorf("error %v, want %q", err, want)
	}
	if _, err := Encode("v", map[string]any{"ok": "x", "t": []int{1}}); err == nil || err.Error() != `value at "v.t" has type []int` {
		t.Errorf("[]int: error %v", err)
	}
}

// TestDecodeRefusesUnknownKinds: a kind Encode never writes does not decode, at the top or
// inside a list, a map or a string list.
func TestDecodeRefusesUnknownKinds(t *testing.T) {
	bad := Value{K: 99}
	for name, v := range map[string]Value{
		"top":     bad,
		"list":    {K: List, L: []Value{{K: String, S: "x"}, bad}},
		"map":     {K: Map, M: []Field{{Key: "a", Val: bad}}},
		"values":  {K: Values, M: []Field{{Key: "a", Val: bad}}},
		"strings": {K: Strings, L: []Value{{K: Int, I: 1}}},
	} {
		if got, ok := v.Decode(); ok || got != nil {
			t.Errorf("%s decodes to %#v, %v", name, got, ok)
		}
	}
	if got, ok := (Value{K: Map}).Decode(); !ok || !cmp.Equal(got, map[string]any{}) {
		t.Errorf("an empty map decodes to %#v, %v", got, ok)
	}
}
