package forgetest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// FixturesDir is the shared forge-fixtures folder (webhook payloads and API
// descriptions), found next to the module checkout or named by $FORGE_FIXTURES. The test
// is skipped when it is absent.
func FixturesDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("FORGE_FIXTURES")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "shared", "forge-fixtures")
	}
	if _, err := os.Stat(filepath.Join(dir, "api-specs")); err != nil {
		t.Skipf("forge fixtures not found at %s: %v", dir, err)
	}
	return dir
}
