package helmrelease

import "testing"

// A headSet finds the first four bytes of each of its texts anywhere in a file, at its
// start and end too, and nothing else (a shorter piece, one byte off).
func TestHeadSet(t *testing.T) {
	h := newHeadSet([]string{"abcd", "Xyz12345", "abc"})
	for data, want := range map[string]bool{
		"abcd": true, "..abcd": true, "abcd..": true, "zzXyz1": true,
		"": false, "abc": false, "abce": false, "bcd abd Xyz": false, "xyz12345": false,
	} {
		if got := h.anyIn([]byte(data)); got != want {
			t.Errorf("anyIn(%q) = %v; want %v", data, got, want)
		}
	}
}
