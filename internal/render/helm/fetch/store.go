package fetch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/opencontainers/go-digest"
)

// store keeps content by digest: on disk under dir/<algorithm>/<hex>, or in memory when dir
// is "". Content is verified when it is written and again when it is read, so a damaged or
// truncated file is a miss, never a wrong chart.
type store struct {
	dir string
	mu  sync.Mutex
	mem map[digest.Digest][]byte
}

// get returns the content of d, at most max bytes, or false when it is not stored intact.
func (s *store) get(d digest.Digest, max int64) ([]byte, bool) {
	if s.dir == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		data, ok := s.mem[d]
		return data, ok
	}
	file, err := os.Open(s.path(d))
	if err != nil {
		return nil, false
	}
	defer file.Close()
	data, err := readCapped(file, max, "cached "+d.String())
	if err != nil || d.Algorithm().FromBytes(data) != d {
		return nil, false
	}
	return data, true
}

// put stores data as d, refusing data that is not d's content. A file is written under a
// temporary name and renamed, so a reader never sees part of one.
func (s *store) put(d digest.Digest, data []byte) error {
	if got := d.Algorithm().FromBytes(data); got != d {
		return fmt.Errorf("content is %s, not %s", got, d)
	}
	if s.dir == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.mem == nil {
			s.mem = map[digest.Digest][]byte{}
		}
		s.mem[d] = data
		return nil
	}
	dir := filepath.Dir(s.path(d))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("chart cache: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("chart cache: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("chart cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path(d)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("chart cache: %w", err)
	}
	return nil
}

// path is d's file; d is a validated sha256 digest (parseDigest), so it holds no path separator.
func (s *store) path(d digest.Digest) string {
	return filepath.Join(s.dir, d.Algorithm().String(), d.Encoded())
}
