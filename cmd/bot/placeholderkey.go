package main

import (
	"encoding/hex"
	"fmt"
	"os"

	"github.com/tiergate/tiergate/internal/render/helmrelease"
)

// placeholderKeyEnv names the environment variable that fixes the key of the Secret
// placeholders charts see (64 hex digits, 32 bytes): without it each cache folder keeps a
// random key of its own, and a --no-cache process uses one random per process, so two
// such processes print different placeholders for the same value (docs/reliability.md
// "Secret placeholders").
const placeholderKeyEnv = "TIERGATE_PLACEHOLDER_KEY"

// usePlaceholderKey applies placeholderKeyEnv when it is set; a malformed value is a usage
// error (exit 2) that names the variable, never the value.
func usePlaceholderKey() error {
	v, ok := os.LookupEnv(placeholderKeyEnv)
	if !ok || v == "" {
		return nil
	}
	k, err := hex.DecodeString(v)
	if err == nil {
		err = helmrelease.UseKey(k)
	}
	if err != nil {
		return usageErr("%s: want 64 hex digits (32 bytes)", placeholderKeyEnv)
	}
	return nil
}

// mustPlaceholderKey is usePlaceholderKey for tests and main: it reports to stderr.
func mustPlaceholderKey() int {
	if err := usePlaceholderKey(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return exitCode(err)
	}
	return 0
}
