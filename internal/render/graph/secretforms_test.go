package graph

import (
	"slices"
	"testing"
)

// Each form is the text a Secret value shows as: base64 as a Secret's data, JSON escapes as
// a last-applied-configuration, sprig's upper, lower and sha256sum; repeats are dropped.
func TestValueForms(t *testing.T) {
	got := ValueForms(`Pq"<9\x`, Plain, Base64, JSONEscaped, Upper, Lower)
	want := []string{`Pq"<9\x`, "UHEiPDlceA==", `Pq\"\u003c9\\x`, `PQ"<9\X`, `pq"<9\x`}
	if !slices.Equal(got, want) {
		t.Errorf("ValueForms = %q\nwant %q", got, want)
	}
	if s := SHA256.Of("abc"); s != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Errorf("SHA256 = %s", s)
	}
	if got := ValueForms("A1", Plain, Upper, Lower); !slices.Equal(got, []string{"A1", "a1"}) {
		t.Errorf("repeats: %q", got)
	}
	if got := ValueForms("", AllForms...); got != nil {
		t.Errorf("empty value: %q", got)
	}
}

// Key lines are the base64-alphabet lines of a multi-line value, not words, numbers,
// boundaries or YAML lines; a one-line value has none.
func TestKeyLines(t *testing.T) {
	got := KeyLines("-----BEGIN KEY-----\n  MIIEowIBAAKCAQ==\nhosts:\nport: 5432\n12345\nsecret\nab9+/Z\n")
	if want := []string{"MIIEowIBAAKCAQ==", "ab9+/Z"}; !slices.Equal(got, want) {
		t.Errorf("KeyLines = %q, want %q", got, want)
	}
	if got := KeyLines("MIIEowIBAAKCAQ"); got != nil {
		t.Errorf("one line: %q", got)
	}
	if !WordShaped("kube-system") || !WordShaped("PROD") || WordShaped("hunter2") || WordShaped("a b") {
		t.Error("WordShaped")
	}
}
