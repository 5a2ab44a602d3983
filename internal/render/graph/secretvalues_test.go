package graph

import (
	"slices"
	"strings"
	"testing"
)

func TestSecretDataValues(t *testing.T) {
	// "aGk=" decodes to "hi"; "%%" is not base64 and stands as written only.
	got := SecretDataValues(map[string]any{"a": "aGk="}, map[string]any{"b": "plain"})
	if want := []string{"aGk=", "hi", "plain"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	got = SecretDataValues([]any{"%%"}, nil)
	if want := []string{"%%"}; !slices.Equal(got, want) {
		t.Errorf("undecodable: got %q, want %q", got, want)
	}
	if got := SecretDataValues(nil, nil); got != nil {
		t.Errorf("no data: got %q, want none", got)
	}
}

func TestLeafStrings(t *testing.T) {
	got := LeafStrings(map[string]any{"x": []any{"s", 3, true, map[string]any{"y": nil}}})
	if want := []string{"s", "3", "true"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := LeafStrings(nil); got != nil {
		t.Errorf("nil: got %q, want none", got)
	}
}

func TestBuildErrorMapTexts(t *testing.T) {
	e := &BuildError{Message: "bad pw", Details: "at pw", File: "k.yaml", Line: 3}
	got := e.MapTexts(func(s string) string { return strings.ReplaceAll(s, "pw", "<redacted>") })
	want := BuildError{Message: "bad <redacted>", Details: "at <redacted>", File: "k.yaml", Line: 3}
	if *got != want || got == e {
		t.Errorf("got %+v (same pointer %v), want a copy %+v", *got, got == e, want)
	}
	if e.Message != "bad pw" {
		t.Errorf("e changed: %+v", *e)
	}
	// Nothing masked: e itself, not a copy.
	if same := e.MapTexts(func(s string) string { return s }); same != e {
		t.Errorf("unchanged texts gave a copy")
	}
	if (*BuildError)(nil).MapTexts(strings.ToUpper) != nil {
		t.Errorf("nil gave non-nil")
	}
}
