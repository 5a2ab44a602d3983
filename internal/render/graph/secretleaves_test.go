package graph

import (
	"slices"
	"testing"
)

func TestCollectionLeaves(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"{inj: Qz9wolverine}", []string{"Qz9wolverine"}},
		{"[Fr6lemming, x]", []string{"Fr6lemming"}},
		{`[{target: {kind: ConfigMap}, patch: "[{op: add, value: Wd7okapi}]"}]`,
			[]string{"ConfigMap", "[{op: add, value: Wd7okapi}]", "Wd7okapi"}},
		{"a: 12345\nb: [true]\n", []string{"12345"}},
		{`{"KIND":"SECRET","NAME":"APP-SECRET","PW":"PM4NARWHAL"}`, []string{"APP-SECRET", "PM4NARWHAL"}},
		// negatives: scalars give no leaves
		{"Rl4walrus", nil},
		{"p@ss: Wx9word", []string{"Wx9word"}},
		{"- ", nil},
		{"{unclosed", nil},
		{"", nil},
		{"12:30", nil},
	} {
		got := CollectionLeaves(c.in)
		slices.Sort(got)
		want := slices.Clone(c.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("CollectionLeaves(%q) = %q, want %q", c.in, got, want)
		}
	}
}

func TestSecretParts(t *testing.T) {
	got := SecretParts("{k: Hv3gopher}")
	if !slices.Equal(got, []string{"Hv3gopher"}) {
		t.Errorf("SecretParts = %q", got)
	}
	if got := SecretParts("plainvalue"); got != nil {
		t.Errorf("SecretParts(scalar) = %q, want none", got)
	}
}
