package server

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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

// TestMarkFinal: a head whose run began to publish its final status is Final in the job
// that replaces it, whether the push came before the mark or after it; a mark by a run of
// a head the stored job does not know changes nothing.
func TestMarkFinal(t *testing.T) {
	const key, a, b, c = "github/acme/fleet/1", "aaaa", "bbbb", "cccc"
	for _, tc := range []struct {
		name       string
		markBefore bool // mark a before b is accepted
		markHead   string
		want       []replacedHead
		wantFinal  bool
	}{
		{"mark then push", true, a, []replacedHead{{SHA: a, Started: true, Final: true}}, false},
		{"push then mark", false, a, []replacedHead{{SHA: a, Started: true, Final: true}}, false},
		{"unknown head", false, c, []replacedHead{{SHA: a, Started: true}}, false},
		{"own head of a newer job", false, b, []replacedHead{{SHA: a, Started: true}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := openStore(filepath.Join(t.TempDir(), "queue.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.close()
			now := time.Unix(0, 0)
			ja := &job{Kind: kindReview, HeadSHA: a}
			if _, err := s.accept("d1", key, ja, now); err != nil {
				t.Fatal(err)
			}
			if _, _, err := s.begin(key); err != nil {
				t.Fatal(err)
			}
			if tc.markBefore {
				if err := s.markFinal(key, ja.Seq, tc.markHead); err != nil {
					t.Fatal(err)
				}
			}
			jb := &job{Kind: kindReview, HeadSHA: b}
			if _, err := s.accept("d2", key, jb, now); err != nil {
				t.Fatal(err)
			}
			if !tc.markBefore {
				if err := s.markFinal(key, ja.Seq, tc.markHead); err != nil {
					t.Fatal(err)
				}
			}
			got, ok, err := s.job(key)
			if err != nil || !ok {
				t.Fatalf("job: %v, %v", ok, err)
			}
			if d := cmp.Diff(tc.want, got.Replaced); d != "" {
				t.Errorf("replaced heads (-want +got):\n%s", d)
			}
			if got.Final != tc.wantFinal {
				t.Errorf("b's job Final = %v, want %v", got.Final, tc.wantFinal)
			}
		})
	}
}

// TestMarkFinalOwnJob: the mark goes to the job itself while it is the stored one, and a
// job that replaces it carries it over.
func TestMarkFinalOwnJob(t *testing.T) {
	const key, a = "github/acme/fleet/1", "aaaa"
	s, err := openStore(filepath.Join(t.TempDir(), "queue.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	ja := &job{Kind: kindReview, HeadSHA: a}
	if _, err := s.accept("d1", key, ja, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if err := s.markFinal(key, ja.Seq, a); err != nil {
		t.Fatal(err)
	}
	got, _, err := s.job(key)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Final {
		t.Errorf("a's job Final = false after markFinal, want true")
	}
	if err := s.markFinal(key, ja.Seq+1, a); err != nil { // a stale run's mark is harmless
		t.Fatal(err)
	}
}
