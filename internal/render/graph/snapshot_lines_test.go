package graph

import (
	"io/fs"
	"reflect"
	"testing"
)

// Lines splits a file at each newline (a final one gives an empty last line), once: a
// second call returns the same slice; a folder, an absent path and a refused file (no
// content) have none.
func TestSnapshotLines(t *testing.T) {
	s := NewSnapshot("/repo")
	s.Data["a.yaml"] = []byte("kind: A\n---\nkind: B\n")
	s.Data["empty.yaml"] = []byte{}
	s.Types["dir"] = fs.ModeDir
	s.Refused["big.yaml"] = "larger than MaxFileBytes"
	got, ok := s.Lines("a.yaml")
	if want := []string{"kind: A", "---", "kind: B", ""}; !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("Lines(a.yaml) = %q, %t; want %q, true", got, ok, want)
	}
	if again, _ := s.Lines("a.yaml"); &again[0] != &got[0] {
		t.Error("Lines(a.yaml) split the file again")
	}
	if got, ok := s.Lines("empty.yaml"); !ok || !reflect.DeepEqual(got, []string{""}) {
		t.Errorf("Lines(empty.yaml) = %q, %t; want [\"\"], true", got, ok)
	}
	for _, rel := range []string{"dir", "gone.yaml", "big.yaml"} {
		if got, ok := s.Lines(rel); ok || got != nil {
			t.Errorf("Lines(%s) = %q, %t; want nil, false", rel, got, ok)
		}
	}
	c := &Cluster{}
	if got, ok := c.Lines("a.yaml"); ok || got != nil {
		t.Errorf("Cluster without Source: Lines = %q, %t; want nil, false", got, ok)
	}
	c.Source = s
	if got, ok := c.Lines("a.yaml"); !ok || len(got) != 4 {
		t.Errorf("Cluster.Lines(a.yaml) = %q, %t", got, ok)
	}
}

// Memo computes a key's value once per snapshot; another key, or another snapshot, has
// its own.
func TestSnapshotMemo(t *testing.T) {
	s, calls := NewSnapshot("/repo"), 0
	mk := func(v string) func() any { return func() any { calls++; return v } }
	if got := s.Memo("k", mk("one")); got != "one" {
		t.Errorf("Memo(k) = %v, want one", got)
	}
	if got := s.Memo("k", mk("two")); got != "one" || calls != 1 {
		t.Errorf("Memo(k) again = %v after %d calls, want one after 1", got, calls)
	}
	if got := s.Memo("j", mk("two")); got != "two" || calls != 2 {
		t.Errorf("Memo(j) = %v after %d calls, want two after 2", got, calls)
	}
	if got := NewSnapshot("/repo").Memo("k", mk("three")); got != "three" {
		t.Errorf("another snapshot's Memo(k) = %v, want three", got)
	}
}
