package values

import (
	"reflect"
	"testing"
)

func TestMerge(t *testing.T) {
	a := map[string]any{"keep": 1, "nested": map[string]any{"x": "a", "y": "a"}, "list": []any{1, 2}, "scalar": map[string]any{"z": 1}}
	b := map[string]any{"nested": map[string]any{"y": "b", "w": "b"}, "list": []any{3}, "scalar": "b", "new": true}
	want := map[string]any{"keep": 1, "nested": map[string]any{"x": "a", "y": "b", "w": "b"}, "list": []any{3}, "scalar": "b", "new": true}
	if got := Merge(a, b); !reflect.DeepEqual(got, want) {
		t.Errorf("Merge = %v, want %v", got, want)
	}
	if want := map[string]any{"x": "a", "y": "a"}; !reflect.DeepEqual(a["nested"], want) {
		t.Errorf("Merge modified a: %v", a["nested"])
	}
	if got := Merge(nil, nil); !reflect.DeepEqual(got, map[string]any{}) {
		t.Errorf("Merge(nil, nil) = %#v, want an empty map", got)
	}
}

func TestString(t *testing.T) {
	m := map[string]any{"s": "v", "n": 3, "m": map[string]any{}}
	for _, tc := range []struct {
		m    map[string]any
		k    string
		want string
	}{{m, "s", "v"}, {m, "n", ""}, {m, "m", ""}, {m, "absent", ""}, {nil, "s", ""}} {
		if got := String(tc.m, tc.k); got != tc.want {
			t.Errorf("String(%v, %q) = %q, want %q", tc.m, tc.k, got, tc.want)
		}
	}
}
