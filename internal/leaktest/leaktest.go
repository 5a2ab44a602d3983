// Package leaktest reads the Secret-derived values a leak fixture lists, for the tests that
// sweep every output for them (cmd/bot TestSecretLeaks, internal/e2e TestServeSecretLeaks).
package leaktest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Values reads dir/leak-values.txt: one Secret-derived value a line, blank lines and
// # comments skipped. A missing file or an empty list fails t.
func Values(t testing.TB, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "leak-values.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s/leak-values.txt lists no value", dir)
	}
	return out
}
