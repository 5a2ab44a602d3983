// Package cachestore is tiergate's persistent cache on disk: content-addressed entries
// (bytes by key) that several processes share, bounded in size by evicting the least
// recently used entries. A write is atomic (a temporary file renamed into place), an entry
// carries the SHA-256 of its content, and an entry that does not check out (truncated,
// changed, of another key) is a miss and is removed: the cache never gives wrong bytes, at
// worst none. It knows nothing of what the bytes mean: render.Cache keys and encodes them.
package cachestore

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofrs/flock"
)

// magic starts every entry file; a file without it is not an entry of this format.
const magic = "tiergate-cache-1\n"

// DefaultMaxBytes bounds a Store opened with maxBytes <= 0: 512 MiB.
const DefaultMaxBytes = 512 << 20

// Store is an open cache folder. Its methods are safe for concurrent use, within a process
// and across processes sharing the folder.
type Store struct {
	root     string // the whole cache, every version's entries below it
	dir      string // this build's entries: root/<version>
	maxBytes int64

	written atomic.Int64 // bytes this process wrote: Close trims only then
	mu      sync.Mutex
	stats   Stats
	// Writes happen in one background goroutine, off the review's path; pending holds
	// what is queued (Get answers from it), and Close waits for the queue to drain.
	pending map[string][]byte
	queue   chan string
	writer  sync.WaitGroup
	closing sync.RWMutex // Put sends under its read lock, Close closes the queue under its lock
}

// Stats counts a Store's lookups and writes since it was opened.
type Stats struct {
	Hits, Misses, Corrupt, Writes int64
	// Evicted counts the entries Close removed to stay within the bound.
	Evicted int64
}

// Open opens (creating it, mode 0700) the cache folder dir for entries of version, a
// string naming everything that changes what an entry means (tiergate's build and the
// libraries that render: Version gives it). Entries of other versions stay, and are
// evicted first as they are no longer read. maxBytes bounds the folder's entries in bytes;
// <= 0 means DefaultMaxBytes. An error names the folder.
func Open(dir, version string, maxBytes int64) (*Store, error) {
	if dir == "" {
		return nil, errors.New("cache folder: empty path")
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("cache folder %s: %w", dir, err)
	}
	sub := filepath.Join(root, "v-"+digest(version)[:16])
	if err := os.MkdirAll(sub, 0o700); err != nil {
		return nil, fmt.Errorf("cache folder %s: %w", dir, err)
	}
	return &Store{root: root, dir: sub, maxBytes: maxBytes, pending: map[string][]byte{}}, nil
}

// Dir is the folder holding this version's entries.
func (s *Store) Dir() string { return s.dir }

// Stats returns the counters of s.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

func (s *Store) count(n *int64) {
	s.mu.Lock()
	*n++
	s.mu.Unlock()
}

// path is the file of key: its SHA-256, below a folder of its first two hex digits.
func (s *Store) path(key string) string {
	h := digest(key)
	return filepath.Join(s.dir, h[:2], h[2:])
}

// Get returns the content stored under key; false when there is none or it does not
// check out (then the file is removed). A hit marks the entry as recently used.
func (s *Store) Get(key string) ([]byte, bool) {
	s.mu.Lock()
	data, queued := s.pending[key]
	if queued {
		s.stats.Hits++
	}
	s.mu.Unlock()
	if queued {
		return data, true
	}
	p := s.path(key)
	data, err := os.ReadFile(p)
	if err != nil {
		s.count(&s.stats.Misses)
		return nil, false
	}
	v, ok := decode(data, key)
	if !ok {
		s.count(&s.stats.Corrupt)
		_ = os.Remove(p)
		return nil, false
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now) // the LRU order is the files' modification times
	s.count(&s.stats.Hits)
	return v, true
}

// Put stores data under key, replacing what was there; data must not be changed after.
// The file is written in the background (Close waits for it); Get sees data at once. It
// fails quietly (the cache is then just colder): a full disk or a read-only folder must
// not fail a review.
func (s *Store) Put(key string, data []byte) {
	s.closing.RLock()
	defer s.closing.RUnlock()
	s.mu.Lock()
	_, queued := s.pending[key]
	s.pending[key] = data
	if s.queue == nil {
		s.queue = make(chan string, 1024)
		s.writer.Add(1)
		go s.write(s.queue)
	}
	q := s.queue
	s.mu.Unlock()
	if !queued { // else the queued write takes the newest data
		q <- key
	}
}

// write writes the queued entries until Close closes the queue.
func (s *Store) write(q chan string) {
	defer s.writer.Done()
	for key := range q {
		s.mu.Lock()
		data := s.pending[key]
		s.mu.Unlock()
		for {
			s.writeFile(key, data)
			s.mu.Lock()
			d := s.pending[key]
			done := sameSlice(d, data)
			if done {
				delete(s.pending, key)
			}
			s.mu.Unlock()
			if done {
				break
			}
			data = d // a newer Put of key came while this one was written
		}
	}
}

// sameSlice reports whether a and b are the same bytes in memory.
func sameSlice(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// writeFile writes one entry file atomically.
func (s *Store) writeFile(key string, data []byte) {
	p := s.path(key)
	// The shard folder exists for all but the first entries of a cache: create it only when
	// the temporary file cannot be (a MkdirAll per entry was a fifth of a cold review's CPU).
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(p), 0o700); err == nil {
			f, err = os.CreateTemp(filepath.Dir(p), ".tmp-*")
		}
	}
	if err != nil {
		return
	}
	body := encode(key, data)
	_, err = f.Write(body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p) // atomic: a reader sees the old entry or the new one
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return
	}
	s.written.Add(int64(len(body)))
	s.count(&s.stats.Writes)
}

// drain ends the write queue and waits until the writer has written what Put queued.
func (s *Store) drain() {
	s.closing.Lock()
	s.mu.Lock()
	q := s.queue
	s.queue = nil
	s.mu.Unlock()
	if q != nil {
		close(q)
	}
	s.closing.Unlock()
	s.writer.Wait()
}

// Close writes what Put queued, then keeps the folder within its bound when this process
// wrote to it: under the
// folder's lock, the least recently used entries (every version's) are removed until the
// rest take at most 90% of the bound. It returns the error of taking the lock or of
// reading the folder.
func (s *Store) Close() error {
	s.drain()
	if s.written.Load() == 0 {
		return nil
	}
	lock := flock.New(filepath.Join(s.root, "lock"))
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("cache folder %s: lock: %w", s.root, err)
	}
	defer func() { _ = lock.Unlock() }()
	n, err := trim(s.root, s.maxBytes*9/10)
	s.mu.Lock()
	s.stats.Evicted += n
	s.mu.Unlock()
	return err
}

type entry struct {
	path string
	size int64
	mod  time.Time
}

// trim removes the oldest entries below root until the rest take at most keep bytes;
// temporary files older than an hour (a writer that died) go too.
func trim(root string, keep int64) (int64, error) {
	var all []entry
	var total int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile by another process
			}
			return err
		}
		if d.IsDir() || d.Name() == "lock" {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".tmp-") {
			if time.Since(info.ModTime()) > time.Hour {
				_ = os.Remove(p)
			}
			return nil
		}
		all = append(all, entry{p, info.Size(), info.ModTime()})
		total += info.Size()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("cache folder %s: %w", root, err)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mod.Before(all[j].mod) })
	var n int64
	for _, e := range all {
		if total <= keep {
			break
		}
		if os.Remove(e.path) == nil {
			n++
		}
		total -= e.size
	}
	return n, nil
}

// encode is an entry file: magic, the SHA-256 of the key and of the content, the
// content's length (8 bytes, big-endian), the content.
func encode(key string, data []byte) []byte {
	kh, dh := sha256.Sum256([]byte(key)), sha256.Sum256(data)
	out := make([]byte, 0, len(magic)+72+len(data))
	out = append(out, magic...)
	out = append(out, kh[:]...)
	out = append(out, dh[:]...)
	out = binary.BigEndian.AppendUint64(out, uint64(len(data)))
	return append(out, data...)
}

// decode returns the content of an entry file of key; false when it is not one.
func decode(file []byte, key string) ([]byte, bool) {
	if !bytes.HasPrefix(file, []byte(magic)) || len(file) < len(magic)+72 {
		return nil, false
	}
	b := file[len(magic):]
	kh := sha256.Sum256([]byte(key))
	if !bytes.Equal(b[:32], kh[:]) {
		return nil, false
	}
	n := binary.BigEndian.Uint64(b[64:72])
	data := b[72:]
	if uint64(len(data)) != n {
		return nil, false
	}
	if dh := sha256.Sum256(data); !bytes.Equal(b[32:64], dh[:]) {
		return nil, false
	}
	return data, true
}

func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
