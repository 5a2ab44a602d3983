package server

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
)

// flakyFinder fails to tell the GitHub login fails times, then tells it; asks counts the asks.
type flakyFinder struct{ fails, asks int }

func (f *flakyFinder) Logins(context.Context) (map[forge.Kind]string, []forge.Kind) {
	f.asks++
	if f.asks <= f.fails {
		return map[forge.Kind]string{}, []forge.Kind{forge.GitHub}
	}
	return map[forge.Kind]string{forge.GitHub: fakeLogin}, nil
}

// TestLoginLearnerDefaultSchedule: with LoginRetry left zero, the learner waits 2 s after
// its first failed ask and doubles the wait up to 5 min, where it stays; the ask after the
// last failure learns the login and the learner stops. The waits are recorded, not slept.
func TestLoginLearnerDefaultSchedule(t *testing.T) {
	h := newHarness(t)
	h.open()
	s := h.srv
	var waits []time.Duration
	s.sleep = func(_ context.Context, d time.Duration) bool {
		waits = append(waits, d)
		return true
	}
	lf := &flakyFinder{fails: 12}
	s.learning.Store(true)
	s.learnLogins(context.Background(), lf)
	want := []time.Duration{
		2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second,
		64 * time.Second, 128 * time.Second, 256 * time.Second,
		5 * time.Minute, 5 * time.Minute, 5 * time.Minute, 5 * time.Minute,
	}
	if d := cmp.Diff(want, waits); d != "" {
		t.Errorf("the learner's waits (-want +got):\n%s", d)
	}
	if lf.asks != 13 {
		t.Errorf("%d asks, want 13", lf.asks)
	}
	if d := cmp.Diff(map[forge.Kind]string{forge.GitHub: fakeLogin}, s.knownLogins()); d != "" {
		t.Errorf("known logins (-want +got):\n%s", d)
	}
	if s.learning.Load() {
		t.Error("still learning after the login was learnt")
	}
}

// TestLoginLearnerStopsWithContext: a learner whose wait is cut short by the server's end
// asks no more and is no longer learning.
func TestLoginLearnerStopsWithContext(t *testing.T) {
	h := newHarness(t)
	h.open()
	s := h.srv
	ctx, cancel := context.WithCancel(context.Background())
	var waits []time.Duration
	s.sleep = func(_ context.Context, d time.Duration) bool {
		waits = append(waits, d)
		cancel()
		return false
	}
	lf := &flakyFinder{fails: 100}
	s.learning.Store(true)
	s.learnLogins(ctx, lf)
	if lf.asks != 1 || !cmp.Equal(waits, []time.Duration{2 * time.Second}) {
		t.Errorf("asks %d, waits %v; want 1 ask and one wait of 2s", lf.asks, waits)
	}
	if s.learning.Load() {
		t.Error("still learning after the server stopped")
	}
	if !sleep(context.Background(), time.Nanosecond) {
		t.Error("sleep of 1ns did not pass")
	}
	if sleep(ctx, time.Hour) {
		t.Error("sleep with an ended context passed")
	}
}

// TestRecheckGiveUpDefaultSchedule: with LoginRetry left zero, a writer's /recheck whose
// bot login stays unknown is put back every 15 s, uncounted, and given up when its run
// starts 1 h after the /recheck was accepted: 240 put-backs (at 0 s, 15 s, … 59 min 45 s),
// then one reply to its author and the job deleted. The clock is the test's.
func TestRecheckGiveUpDefaultSchedule(t *testing.T) {
	h := newHarness(t)
	h.fc.canWrite = true
	h.open()
	s := h.srv
	t0 := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	now := t0
	s.now = func() time.Time { return now }
	s.learner = true
	s.learning.Store(true) // the learner still asks, and never learns
	if code, st := status(h.github("issue_comment", "c-1", ghComment(7, 99, "alice", "User", "/recheck"), ghSecret)); code != http.StatusAccepted || st != "queued" {
		t.Fatalf("got %d %q, want 202 queued", code, st)
	}
	keys, _, err := s.store.jobs()
	if err != nil || len(keys) != 1 {
		t.Fatalf("stored jobs %v, %v; want one", keys, err)
	}
	putBacks := 0
	for {
		r := &run{key: keys[0], ctx: context.Background()}
		s.process(context.Background(), r)
		if !r.retry {
			break
		}
		if r.delay != 15*time.Second {
			t.Fatalf("put-back %d after %s: delay %s, want 15s", putBacks+1, now.Sub(t0), r.delay)
		}
		if jobs := h.storedJobs(); len(jobs) != 1 || jobs[0].Attempt != 0 {
			t.Fatalf("put-back %d: stored %+v, want the job with no attempt counted", putBacks+1, jobs)
		}
		putBacks++
		now = now.Add(r.delay)
		if putBacks > 1000 {
			t.Fatal("never given up")
		}
	}
	if putBacks != 240 || now.Sub(t0) != time.Hour {
		t.Errorf("%d put-backs, given up %s after acceptance; want 240 and 1h0m0s", putBacks, now.Sub(t0))
	}
	want := []call{{Method: "Reply", Text: "@alice /recheck not run: the bot's account is unknown (the forge did not answer GET /user for 1h0m0s); push again or set --bot-login\n\n<!-- tiergate reply to comment 99 -->"}}
	if d := cmp.Diff(want, h.fc.snapshot()); d != "" {
		t.Errorf("forge calls (-want +got):\n%s", d)
	}
	if jobs := h.storedJobs(); len(jobs) != 0 {
		t.Errorf("stored after the give-up: %+v", jobs)
	}
}
