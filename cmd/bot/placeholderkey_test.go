package main

import (
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/render/helmrelease"
)

// TestPlaceholderKeyEnv: a malformed TIERGATE_PLACEHOLDER_KEY is exit 2 naming the
// variable and not the value; a valid one fixes the key, so two Placeholders agree.
func TestPlaceholderKeyEnv(t *testing.T) {
	t.Setenv(placeholderKeyEnv, "zz-not-hex-s3cr3t")
	err := usePlaceholderKey()
	if exitCode(err) != 2 || err.Error() != "TIERGATE_PLACEHOLDER_KEY: want 64 hex digits (32 bytes)" || strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("malformed key: %v (exit %d)", err, exitCode(err))
	}
	t.Setenv(placeholderKeyEnv, strings.Repeat("ab", 31))
	if err := usePlaceholderKey(); exitCode(err) != 2 {
		t.Fatalf("31-byte key: %v, want exit 2", err)
	}
	t.Setenv(placeholderKeyEnv, testPlaceholderKey) // TestMain's: other tests render in parallel
	if err := usePlaceholderKey(); err != nil {
		t.Fatal(err)
	}
	k, fixed := helmrelease.FixedKey()
	if !fixed || len(k) != 32 || k[0] != 7 {
		t.Fatalf("FixedKey = %x, %v", k, fixed)
	}
	if a, b := helmrelease.SecretPlaceholder("hunter2"), helmrelease.NewPlaceholders(k).Text("hunter2"); a != b {
		t.Fatalf("process placeholder %q, keyed %q: want equal", a, b)
	}
}
