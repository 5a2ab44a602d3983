package gitrepo

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/gittest"
)

// Files visits every regular file and symlink, and Open sizes and reads each blob, loose
// or packed, small or over largeObjectThreshold, with the exact content committed.
func TestFilesOpenReadsEachBlob(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	large := bytes.Repeat([]byte("key: value\n"), 4000) // 44000 bytes: over largeObjectThreshold
	type file struct {
		Path    string
		Symlink bool
		Size    int64
		Content string
	}
	want := []file{
		{Path: "a.yaml", Size: 5, Content: "a: 1\n"},
		{Path: "apps/empty.yaml", Size: 0, Content: ""},
		{Path: "apps/large.yaml", Size: int64(len(large)), Content: string(large)},
		{Path: "link", Symlink: true, Size: 6, Content: "a.yaml"},
		{Path: "run.sh", Size: 8, Content: "echo hi\n"},
	}
	for _, packed := range []bool{false, true} {
		dir := t.TempDir()
		gittest.Run(t, dir, "init", "-q", "-b", "main")
		write := func(rel string, data []byte, mode os.FileMode) {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, mode); err != nil {
				t.Fatal(err)
			}
		}
		write("a.yaml", []byte("a: 1\n"), 0o644)
		write("apps/empty.yaml", nil, 0o644)
		write("apps/large.yaml", large, 0o644)
		write("run.sh", []byte("echo hi\n"), 0o755)
		if err := os.Symlink("a.yaml", filepath.Join(dir, "link")); err != nil {
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
		var got []file
		err = r.Files(h, func(f File) error {
			b, err := f.Open()
			if err != nil {
				return err
			}
			data, err := b.Read()
			if err != nil {
				return err
			}
			got = append(got, file{Path: f.Path, Symlink: f.Symlink, Size: b.Size, Content: string(data)})
			return nil
		})
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("packed=%t: files (-want +got):\n%s", packed, diff)
		}
	}
}

// Open sizes a blob over the limit of its caller from its object header, loose or packed,
// without inflating it: walking a tree with a 24 MiB blob and opening it allocates a small
// part of it (what a caller that refuses it for its Size costs), and Read then returns the
// whole content.
func TestFilesOpenDoesNotReadARefusedBlob(t *testing.T) {
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
		blobs := map[string]Blob{}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err = r.Files(h, func(f File) error {
			b, err := f.Open()
			sizes[f.Path], blobs[f.Path] = b.Size, b
			return err
		})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]int64{"big.yaml": big, "small.yaml": 5}, sizes); diff != "" {
			t.Fatalf("packed=%t: sizes (-want +got):\n%s", packed, diff)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > big/4 {
			t.Errorf("packed=%t: opening the tree's blobs allocated %d bytes for a %d-byte blob it was not asked to read", packed, got, big)
		}
		got, err := blobs["big.yaml"].Read()
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("packed=%t: Read of big.yaml: %d bytes, err %v; want the %d bytes committed", packed, len(got), err, big)
		}
		r.Close()
	}
}

// A File without a repository, and a Blob not opened, are errors naming the path.
func TestFilesOpenWithoutRepository(t *testing.T) {
	if _, err := (File{Path: "a.yaml"}).Open(); err == nil || err.Error() != "a.yaml: no blob" {
		t.Errorf("Open: %v, want a.yaml: no blob", err)
	}
	if _, err := (Blob{path: "a.yaml"}).Read(); err == nil || err.Error() != "a.yaml: no blob" {
		t.Errorf("Read: %v, want a.yaml: no blob", err)
	}
}
