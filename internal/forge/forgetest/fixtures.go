package forgetest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// FixturesDir is the forge-fixtures folder (webhook payloads and API descriptions):
// $FORGE_FIXTURES when set (the test is skipped, naming the path, when it lacks
// api-specs), else the shared research folder next to the module checkout
// (../shared/forge-fixtures) when present, else the copy in this package's
// testdata/forge-fixtures, made by tools/trim-forge-fixtures.py: every webhook payload, and
// the API descriptions cut to the operations the fakes serve. So the tests that use the
// fakes run on a fresh clone and in CI, not only next to the shared folder.
func FixturesDir(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	here := filepath.Dir(file)
	dir := os.Getenv("FORGE_FIXTURES")
	if dir == "" {
		dir = filepath.Join(here, "..", "..", "..", "..", "shared", "forge-fixtures")
		if _, err := os.Stat(filepath.Join(dir, "api-specs")); err != nil {
			dir = filepath.Join(here, "testdata", "forge-fixtures")
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "api-specs")); err != nil {
		t.Skipf("forge fixtures not found at %s ($FORGE_FIXTURES): %v", dir, err)
	}
	return dir
}
