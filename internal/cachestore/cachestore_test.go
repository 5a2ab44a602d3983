package cachestore

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func open(t *testing.T, dir, version string, max int64) *Store {
	t.Helper()
	s, err := Open(dir, version, max)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPutGet(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, "v1", 0)
	if _, ok := s.Get("a"); ok {
		t.Fatal("empty store: hit")
	}
	s.Put("a", []byte("alpha"))
	s.Put("b", nil)
	if got, ok := s.Get("a"); !ok || string(got) != "alpha" {
		t.Fatalf("Get(a) = %q, %t; want alpha, true", got, ok)
	}
	if got, ok := s.Get("b"); !ok || len(got) != 0 {
		t.Fatalf("Get(b) = %q, %t; want empty, true", got, ok)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s.Put("a", []byte("again")) // after Close: a new queue
	if got, _ := s.Get("a"); string(got) != "again" {
		t.Fatalf("Get(a) after a second Put = %q, want again", got)
	}
	if err := s.Close(); err != nil { // the queued writes reach the folder
		t.Fatal(err)
	}
	// Another process, the same version, sees the entries; another version does not.
	if got, ok := open(t, dir, "v1", 0).Get("a"); !ok || string(got) != "again" {
		t.Fatalf("second Store: Get(a) = %q, %t", got, ok)
	}
	if _, ok := open(t, dir, "v2", 0).Get("a"); ok {
		t.Fatal("another version reads v1's entry")
	}
	if st := s.Stats(); st.Hits != 3 || st.Misses != 1 || st.Writes != 3 || st.Corrupt != 0 {
		t.Fatalf("stats = %+v, want 3 hits, 1 miss, 3 writes", st)
	}
}

// TestDamagedEntryIsAMiss: an entry changed in any way is a miss, counted corrupt and
// removed; so is another key's entry copied over it.
func TestDamagedEntryIsAMiss(t *testing.T) {
	for name, damage := range map[string]func(p string, data []byte) []byte{
		"byte flipped": func(_ string, d []byte) []byte { d[len(d)-1] ^= 1; return d },
		"cut short":    func(_ string, d []byte) []byte { return d[:len(d)-1] },
		"longer":       func(_ string, d []byte) []byte { return append(d, 'x') },
		"empty":        func(string, []byte) []byte { return nil },
		"header only":  func(_ string, d []byte) []byte { return d[:len(magic)+10] },
		"not an entry": func(string, []byte) []byte { return []byte("hello world") },
		"another key's": func(p string, _ []byte) []byte {
			return encode("other", []byte("content"))
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := open(t, t.TempDir(), "v", 0)
			s.Put("k", []byte("content"))
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			p := s.path("k")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, damage(p, data), 0o600); err != nil {
				t.Fatal(err)
			}
			if got, ok := s.Get("k"); ok {
				t.Fatalf("damaged entry: Get = %q, true", got)
			}
			if st := s.Stats(); st.Corrupt != 1 {
				t.Fatalf("corrupt = %d, want 1", st.Corrupt)
			}
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Fatalf("damaged entry not removed: %v", err)
			}
		})
	}
}

// TestCloseEvictsLeastRecentlyUsed: over its bound, Close removes the entries read or
// written longest ago (every version's) until 90% of the bound is left.
func TestCloseEvictsLeastRecentlyUsed(t *testing.T) {
	dir := t.TempDir()
	old := open(t, dir, "old", 0)
	old.Put("stale", bytes.Repeat([]byte("s"), 1000))
	s := open(t, dir, "v", 4000) // about three 1000-byte entries fit in 90%
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		s.Put(fmt.Sprint(i), bytes.Repeat([]byte("x"), 1000))
	}
	s.writeQueued(t)
	base := time.Now().Add(-time.Hour)
	// stale oldest, then 1, 0 (read later), 2, 3.
	for i, k := range []string{"1", "0", "2", "3"} {
		tm := base.Add(time.Duration(i+1) * time.Minute)
		if err := os.Chtimes(s.path(k), tm, tm); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(old.path("stale"), base, base); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, k := range []string{"0", "1", "2", "3"} {
		if _, ok := s.Get(k); ok {
			kept = append(kept, k)
		}
	}
	if fmt.Sprint(kept) != "[0 2 3]" {
		t.Errorf("kept %v, want [0 2 3]", kept)
	}
	if _, ok := old.Get("stale"); ok {
		t.Error("the other version's older entry was kept")
	}
	if st := s.Stats(); st.Evicted != 2 {
		t.Errorf("evicted %d, want 2", st.Evicted)
	}
}

// TestCloseWithoutWritesKeepsAll: a process that only read does not trim.
func TestCloseWithoutWritesKeepsAll(t *testing.T) {
	dir := t.TempDir()
	w := open(t, dir, "v", 1500)
	w.Put("a", bytes.Repeat([]byte("a"), 1000))
	w.Put("b", bytes.Repeat([]byte("b"), 1000))
	w.writeQueued(t)
	r := open(t, dir, "v", 1500)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b"} {
		if _, ok := r.Get(k); !ok {
			t.Errorf("%s evicted by a process that wrote nothing", k)
		}
	}
}

// TestConcurrentProcesses: stores on one folder writing and reading the same keys at once
// read whole entries only (the race detector checks the rest).
func TestConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for p := 0; p < 4; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			s := open(t, dir, "v", 20000)
			for i := 0; i < 50; i++ {
				k := fmt.Sprint(i % 7)
				want := bytes.Repeat([]byte(k), 500+i%7)
				s.Put(k, want)
				if got, ok := s.Get(k); ok && !bytes.Equal(got, want) {
					t.Errorf("process %d: Get(%s) gave %d bytes of another content", p, k, len(got))
				}
			}
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		}(p)
	}
	wg.Wait()
}

// writeQueued waits for the writes Put queued, without trimming.
func (s *Store) writeQueued(t *testing.T) {
	t.Helper()
	s.drain()
}

// TestPutWhileWriting: Puts of one key racing its background write leave the newest
// content in the folder.
func TestPutWhileWriting(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, "v", 0)
	for i := 0; i < 200; i++ {
		s.Put("k", []byte(fmt.Sprint(i)))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got, ok := open(t, dir, "v", 0).Get("k"); !ok || string(got) != "199" {
		t.Fatalf("Get(k) = %q, %t; want 199", got, ok)
	}
}

func TestOpenRefusesFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(f, "v", 0); err == nil {
		t.Fatal("Open of a file: no error")
	}
	if _, err := Open("", "v", 0); err == nil {
		t.Fatal("Open of an empty path: no error")
	}
}

// TestVersionNamesTheBuild: the version string names this build's modules and Go.
func TestVersionNamesTheBuild(t *testing.T) {
	v := Version("1.2.3")
	if !bytes.Contains([]byte(v), []byte("tiergate 1.2.3 go")) {
		t.Errorf("Version lacks tiergate's version and Go's: %q", v[:min(len(v), 80)])
	}
	if Version("1.2.3") != v || Version("1.2.4") == v {
		t.Error("Version is not a function of the tiergate version")
	}
}

// TestWriteRecreatesRemovedFolder: an entry is written into a shard folder that exists, and
// into one removed since (by another process's trim, or by hand): both reach the disk.
func TestWriteRecreatesRemovedFolder(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, "v1", 0)
	s.Put("a", []byte("alpha"))
	s.writeQueued(t)
	s.Put("b", []byte("beta")) // the version folder exists, b's shard may not
	s.writeQueued(t)
	if err := os.RemoveAll(s.dir); err != nil {
		t.Fatal(err)
	}
	s.Put("c", []byte("gamma"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := open(t, dir, "v1", 0)
	for key, want := range map[string]string{"a": "", "b": "", "c": "gamma"} {
		got, ok := r.Get(key)
		if ok != (want != "") || string(got) != want {
			t.Errorf("Get(%s) = %q, %t; want %q, %t", key, got, ok, want, want != "")
		}
	}
	if st := s.Stats(); st.Writes != 3 {
		t.Errorf("writes = %d, want 3", st.Writes)
	}
}
