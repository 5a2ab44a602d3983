package gitrepo

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tiergate/tiergate/internal/gittest"
)

// Files sizes each blob from its object header, loose or packed, and reads it only when
// asked: walking a tree with a 24 MiB blob allocates a small part of it, and Read then
// returns the whole content.
func TestFilesSizesBlobsWithoutReading(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	const big = 24 << 20
	for _, packed := range []bool{false, true} {
		dir := t.TempDir()
		gittest.Run(t, dir, "init", "-q", "-b", "main")
		// Incompressible content: a packed blob is as large on disk as in memory.
		data := make([]byte, big)
		for i, x := 0, uint32(1); i < big; i++ {
			x = x*1664525 + 1013904223
			data[i] = byte(x >> 24)
		}
		if err := os.WriteFile(filepath.Join(dir, "big.yaml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "small.yaml"), []byte("a: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		gittest.Run(t, dir, "add", ".")
		gittest.Run(t, dir, "commit", "-q", "-m", "files")
		if packed {
			gittest.Run(t, dir, "gc", "-q")
		}
		r, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		h, err := r.Resolve("HEAD")
		if err != nil {
			t.Fatal(err)
		}
		sizes := map[string]int64{}
		files := map[string]File{}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err = r.Files(h, func(f File) error {
			sizes[f.Path] = f.Size
			files[f.Path] = f
			return nil
		})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if sizes["big.yaml"] != big || sizes["small.yaml"] != 5 || len(sizes) != 2 {
			t.Fatalf("packed=%t: sizes %v, want big.yaml %d and small.yaml 5", packed, sizes, big)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > big/4 {
			t.Errorf("packed=%t: walking the tree allocated %d bytes for a %d-byte blob it was not asked to read", packed, got, big)
		}
		got, err := files["big.yaml"].Read()
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("packed=%t: Read of big.yaml: %d bytes, err %v; want the %d bytes committed", packed, len(got), err, big)
		}
		r.Close()
	}
}
