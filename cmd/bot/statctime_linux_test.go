package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// TestStatHash: a tracked file has the index's hash without being read only when its size
// and modification time are the index entry's and that time is before the index was
// written, with the same change time, device and inode; any other file is read.
func TestStatHash(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(p, []byte("kind: A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 12, 1, 10, 0, 0, 5, time.UTC)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	des, err := os.ReadDir(dir)
	if err != nil || len(des) != 1 {
		t.Fatalf("read %s: %v %v", dir, des, err)
	}
	fi, err := des[0].Info()
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	ctime := time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	same := func(e index.Entry) index.Entry {
		e.CreatedAt, e.Inode, e.Dev = ctime, uint32(st.Ino), uint32(st.Dev)
		return e
	}
	hash := plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")
	later := mtime.Add(time.Second)
	for _, tc := range []struct {
		name      string
		entry     index.Entry
		indexTime time.Time
		rel       string
		want      string
		ok        bool
	}{
		{"unchanged", same(index.Entry{Hash: hash, Size: 8, ModifiedAt: mtime}), later, "a.yaml", hash.String(), true},
		{"other size", same(index.Entry{Hash: hash, Size: 9, ModifiedAt: mtime}), later, "a.yaml", "", false},
		{"other time", same(index.Entry{Hash: hash, Size: 8, ModifiedAt: mtime.Add(-time.Nanosecond)}), later, "a.yaml", "", false},
		{"other change time", index.Entry{Hash: hash, Size: 8, ModifiedAt: mtime, CreatedAt: ctime.Add(-time.Second), Inode: uint32(st.Ino), Dev: uint32(st.Dev)}, later, "a.yaml", "", false},
		{"other inode", index.Entry{Hash: hash, Size: 8, ModifiedAt: mtime, CreatedAt: ctime, Inode: uint32(st.Ino) + 1, Dev: uint32(st.Dev)}, later, "a.yaml", "", false},
		{"racy: written in the index's tick", same(index.Entry{Hash: hash, Size: 8, ModifiedAt: mtime}), mtime, "a.yaml", "", false},
		{"index time unknown", same(index.Entry{Hash: hash, Size: 8, ModifiedAt: mtime}), time.Time{}, "a.yaml", "", false},
		{"untracked", same(index.Entry{Hash: hash, Size: 8, ModifiedAt: mtime}), later, "b.yaml", "", false},
	} {
		entries := map[string]*index.Entry{"a.yaml": &tc.entry}
		got, ok := statHash(entries, tc.indexTime, tc.rel, des[0])
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: statHash = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
