package server

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"
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

// TestFinalHeads: a head recorded by finishReviewed is not accepted again under its PR's
// key (a new delivery id of it is answered reviewed and stores nothing), another head and
// another PR are; the PR keeps its maxFinalHeads newest heads; an entry older than
// deliveryTTL is pruned with the deliveries, after which the head is accepted again.
func TestFinalHeads(t *testing.T) {
	s, err := openStore(filepath.Join(t.TempDir(), "queue.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	const key, other = "github/acme/fleet/1", "github/acme/fleet/2"
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	review := func(head string) *job { return &job{Kind: kindReview, HeadSHA: head} }
	accept := func(delivery, key, head string, at time.Time) acceptance {
		t.Helper()
		res, err := s.accept(delivery, key, review(head), at)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if got := accept("d1", key, "h0", now); got != accepted {
		t.Fatalf("first delivery of h0: %v, want accepted", got)
	}
	if err := s.finishReviewed(key, 1, "h0", now); err != nil {
		t.Fatal(err)
	}
	if n := checkJobs(t, s); n != 0 {
		t.Fatalf("%d jobs after finishReviewed, want 0", n)
	}
	if got := accept("d2", key, "h0", now); got != reviewed {
		t.Errorf("h0 again, new delivery id: %v, want reviewed", got)
	}
	if got := accept("d3", other, "h0", now); got != accepted {
		t.Errorf("h0 on another PR: %v, want accepted", got)
	}
	for i := 1; i <= maxFinalHeads; i++ {
		if err := s.finishReviewed(key, 0, fmt.Sprintf("h%d", i), now); err != nil {
			t.Fatal(err)
		}
	}
	if got := accept("d4", key, "h1", now); got != reviewed {
		t.Errorf("h1, among the %d newest: %v, want reviewed", maxFinalHeads, got)
	}
	if got := accept("d5", key, "h0", now); got != accepted {
		t.Errorf("h0, no longer among the %d newest: %v, want accepted", maxFinalHeads, got)
	}
	if got := accept("d6", key, "h1", now.Add(deliveryTTL+pruneInterval)); got != accepted {
		t.Errorf("h1 after the entry was pruned: %v, want accepted", got)
	}
}

// checkJobs is the number of jobs stored.
func checkJobs(t *testing.T, s *store) int {
	t.Helper()
	keys, _, err := s.jobs()
	if err != nil {
		t.Fatal(err)
	}
	return len(keys)
}

// TestDecodeJobPending: a job stored by a version before job.Pending has no "pending";
// Started meant there that the head may be pending, so it reads as Pending when Started,
// for the job and for each replaced head. A stored "pending" is taken as it is, and every
// job written now stores it, false too.
func TestDecodeJobPending(t *testing.T) {
	const key = "github/acme/fleet/1"
	for _, tc := range []struct {
		name, stored string
		want         job
	}{
		{"old, started", `{"kind":"review","head_sha":"bbbb","seq":3,"started":true,"replaced":[{"sha":"aaaa","started":true},{"sha":"cccc"},{"sha":"dddd","started":true,"final":true}]}`,
			job{Kind: kindReview, HeadSHA: "bbbb", Seq: 3, Started: true, Pending: true, Replaced: []replacedHead{
				{SHA: "aaaa", Started: true, Pending: true}, {SHA: "cccc"}, {SHA: "dddd", Started: true, Pending: true, Final: true}}}},
		{"old, not started", `{"kind":"review","head_sha":"bbbb","seq":3}`,
			job{Kind: kindReview, HeadSHA: "bbbb", Seq: 3}},
		{"new, started, not pending", `{"kind":"review","head_sha":"bbbb","seq":3,"started":true,"pending":false,"replaced":[{"sha":"aaaa","started":true,"pending":false}]}`,
			job{Kind: kindReview, HeadSHA: "bbbb", Seq: 3, Started: true, Replaced: []replacedHead{{SHA: "aaaa", Started: true}}}},
		{"new, pending", `{"kind":"review","head_sha":"bbbb","seq":3,"pending":true,"replaced":[{"sha":"aaaa","pending":true}]}`,
			job{Kind: kindReview, HeadSHA: "bbbb", Seq: 3, Pending: true, Replaced: []replacedHead{{SHA: "aaaa", Pending: true}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openTestStore(t)
			putRaw(t, s, key, tc.stored)
			got, ok, err := s.job(key)
			if err != nil || !ok {
				t.Fatalf("job: %v, %v", ok, err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("job (-want +got):\n%s", d)
			}
			began, _, err := s.begin(key)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			want.Attempt = 1 // begin counts the run
			if d := cmp.Diff(want, began); d != "" {
				t.Errorf("begin (-want +got):\n%s", d)
			}
		})
	}
	t.Run("written now", func(t *testing.T) {
		s := openTestStore(t)
		in := &job{Kind: kindReview, HeadSHA: "bbbb", Started: true, Replaced: []replacedHead{{SHA: "aaaa", Started: true}}}
		if err := s.db.Update(func(tx *bolt.Tx) error { return putJob(tx.Bucket(bucketJobs), key, in) }); err != nil {
			t.Fatal(err)
		}
		got, _, err := s.job(key)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(*in, got); d != "" {
			t.Errorf("job read back (-want +got):\n%s", d)
		}
	})
	t.Run("bad json", func(t *testing.T) {
		s := openTestStore(t)
		putRaw(t, s, key, `{"kind":"review","pending":"yes"}`)
		_, _, err := s.job(key)
		want := "read job github/acme/fleet/1: json: cannot unmarshal string into Go struct field .pending of type bool"
		if err == nil || err.Error() != want {
			t.Errorf("err = %v, want %s", err, want)
		}
	})
}

func openTestStore(t *testing.T) *store {
	t.Helper()
	s, err := openStore(filepath.Join(t.TempDir(), "queue.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.close() })
	return s
}

// putRaw stores v, a job's JSON as some version wrote it, under key.
func putRaw(t *testing.T, s *store, key, v string) {
	t.Helper()
	if err := s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketJobs).Put([]byte(key), []byte(v)) }); err != nil {
		t.Fatal(err)
	}
}
