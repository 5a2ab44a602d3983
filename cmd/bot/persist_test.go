package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// reviewOut runs `bot review` on repo's HEAD~1..HEAD in format with the cache flags c and
// returns its output and exit status.
func reviewOut(t *testing.T, repo, format string, c cacheFlags) ([]byte, int) {
	t.Helper()
	var out bytes.Buffer
	err := runReview(context.Background(), &out, reviewFlags{repo: repo, base: "HEAD~1", head: "HEAD", format: format, cache: c})
	var ee *exitError
	switch {
	case err == nil:
		return out.Bytes(), 0
	case errors.As(err, &ee) && ee.code == 1:
		return out.Bytes(), 1
	}
	t.Fatalf("review: %v", err)
	return nil, 0
}

// TestSecondRunSameReport reviews every scenario without the persistent cache, then twice
// on one new cache folder (the second run reads every build from it): the JSON reports
// (timings aside), the Markdown comments and the exit statuses are identical.
func TestSecondRunSameReport(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/scenarios/*")
	shared, _ := filepath.Glob("../../../shared/scenarios/*")
	for _, dir := range append(dirs, shared...) {
		if _, err := os.Stat(filepath.Join(dir, "expect.json")); err != nil {
			continue
		}
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(dir)))+"/"+filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			repo := commitScenario(t, dir)
			want, wantCode := reviewOut(t, repo, "json", cacheFlags{off: true})
			wantMD, _ := reviewOut(t, repo, "markdown", cacheFlags{off: true})
			c := cacheFlags{dir: t.TempDir()}
			for _, run := range []string{"first", "second"} {
				got, code := reviewOut(t, repo, "json", c)
				if d := cmp.Diff(withoutTimings(t, want), withoutTimings(t, got)); d != "" || code != wantCode {
					t.Errorf("%s run on the cache folder: exit %d (want %d), report (-no cache +cache):\n%s", run, code, wantCode, d)
				}
			}
			if got, _ := reviewOut(t, repo, "markdown", c); !bytes.Equal(got, wantMD) {
				t.Errorf("Markdown from the cache folder differs (-no cache +cache):\n%s", cmp.Diff(string(wantMD), string(got)))
			}
			entries, _ := filepath.Glob(filepath.Join(c.dir, "v-*", "*", "*"))
			if len(entries) == 0 {
				t.Error("the cache folder holds no entry")
			}
		})
	}
}

// TestCacheFolderUnusable: a --cache-dir that cannot be made is a warning, and the review
// runs without the cache.
func TestCacheFolderUnusable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	c := cacheFlags{dir: filepath.Join(file, "sub")}
	cache, charts, done := c.openCache(&warn)
	done()
	if cache != nil || charts != "" {
		t.Errorf("openCache on a file's path gave a cache (%v, %q)", cache != nil, charts)
	}
	if want := "no persistent cache: cache folder " + filepath.Join(file, "sub") + ": mkdir " + file + ": not a directory\n"; warn.String() != want {
		t.Errorf("warning %q, want %q", warn.String(), want)
	}
	if cache, _, done := (&cacheFlags{off: true}).openCache(&warn); cache != nil {
		done()
		t.Error("--no-cache gave a cache")
	}
}
