package server

import (
	"path/filepath"
	"testing"
)

func TestPostedLineComments(t *testing.T) {
	s, err := openStore(filepath.Join(t.TempDir(), "queue.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	key := "github/acme/fleet/1"
	steps := []struct {
		mark bool
		fp   string
		want bool
	}{
		{false, "a", false}, // nothing posted yet
		{true, "a", true},   // posted: a re-run with the same comments skips the review
		{false, "b", false}, // other comments (a new head or new findings) are posted
	}
	for i, st := range steps {
		if st.mark {
			if err := s.markPosted(key, st.fp); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.posted(key, st.fp)
		if err != nil || got != st.want {
			t.Fatalf("step %d: posted(%q) = %v, %v; want %v", i, st.fp, got, err, st.want)
		}
	}
}
