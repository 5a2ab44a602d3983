package server

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/tiergate/tiergate/internal/cachestore"
	"github.com/tiergate/tiergate/internal/forge"
)

// reviewOnce delivers PR 7's head shaA as delivery id and waits until its final status is
// the n-th one; it returns the forge calls of that run.
func (h *harness) reviewOnce(id string, n int) []call {
	h.t.Helper()
	from := len(h.fc.snapshot())
	if code, s := status(h.github("pull_request", id, ghPR("synchronize", 7, shaA, false), ghSecret)); code != http.StatusAccepted || s != "queued" {
		h.t.Fatalf("got %d %q, want 202 queued", code, s)
	}
	calls := h.waitFor("final status", func(calls []call) bool {
		final := 0
		for _, c := range calls {
			if c.Method == "SetStatus" && c.SHA == shaA && c.State != forge.StatePending {
				final++
			}
		}
		return final == n
	})
	h.waitStoreEmpty()
	return calls[from:]
}

// TestRestartStartsWarm: the server's cache persists in DataDir/cache, builds (the demo's
// base flux-system, infra, apps, and head flux-system, apps, infra shared, with the
// generator's outputs, objects after substitution and parsed inputs) and the whole graphs
// of base and head, so the same review after a restart loads both graphs from disk and
// looks up no build at all: no persistent lookup misses, and the same review is published
// (its line comments are posted already, so only the summary and status come again).
func TestRestartStartsWarm(t *testing.T) {
	h := newHarness(t)
	h.start()
	cold := h.reviewOnce("d-1", 1)
	disk := h.srv.disk
	coldMem := h.srv.cache.Stats()
	h.close()
	coldDisk := disk.Stats()
	entries := cacheEntries(t, filepath.Join(h.dir, "cache"))

	// The head has its final status, so its delivery would run nothing (TestFinalHeads):
	// the record is dropped to compare the same review, cold and warm.
	h.open()
	err := h.srv.store.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketFinalHeads).Delete([]byte("github/acme/fleet/7")) })
	if err != nil {
		t.Fatal(err)
	}
	h.start()
	warm := h.reviewOnce("d-2", 2)
	warmDisk := h.srv.disk.Stats()
	warmMem := h.srv.cache.Stats()
	var coldNoLines []call
	for _, c := range cold {
		if c.Method != "PostReview" {
			coldNoLines = append(coldNoLines, c)
		}
	}
	if d := cmp.Diff(coldNoLines, warm); d != "" {
		t.Errorf("forge calls of the warm run (-cold +warm):\n%s", d)
	}
	if entries != 20 {
		t.Errorf("cold run: %d entries in DataDir/cache, want 20 (16 of builds, 2 whole graphs, the Secret placeholders' key, the source-ignore verdicts)", entries)
	}
	if coldDisk.Hits != 6 || coldDisk.Misses != 30 || coldDisk.Corrupt != 0 {
		t.Errorf("persistent cache of the cold run: %+v, want 6 hits (head's reads of the base's entries), 30 misses (24 of builds; each whole graph under its key and its prior's; the placeholders' key; the verdicts), 0 corrupt", coldDisk)
	}
	// After the restart: the two graphs, the placeholders' key and the verdicts.
	if d := cmp.Diff(cachestore.Stats{Hits: 4}, warmDisk); d != "" {
		t.Errorf("persistent cache after the restart (-want +got):\n%s", d)
	}
	if coldMem.Hits != 1 || coldMem.Misses != 6 || warmMem.Hits != 0 || warmMem.Misses != 0 {
		t.Errorf("build lookups: cold %d hits %d misses, warm %d hits %d misses; want 1/6 and 0/0", coldMem.Hits, coldMem.Misses, warmMem.Hits, warmMem.Misses)
	}
}

// cacheEntries counts the entry files below a cachestore folder.
func cacheEntries(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNoPersistentCache: CacheMaxBytes < 0 keeps the build cache in memory only; nothing
// is written below DataDir/cache.
func TestNoPersistentCache(t *testing.T) {
	h := newHarness(t)
	h.opts.CacheMaxBytes = -1
	h.start()
	h.reviewOnce("d-1", 1)
	if h.srv.disk != nil {
		t.Errorf("a persistent cache with CacheMaxBytes -1")
	}
	if _, err := os.Stat(filepath.Join(h.dir, "cache")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("DataDir/cache: %v, want none", err)
	}
}
