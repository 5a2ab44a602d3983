package server

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/tiergate/tiergate/internal/forge"
)

// storedDeliveries lists the delivery ids the queue holds.
func (h *harness) storedDeliveries() []string {
	h.t.Helper()
	var ids []string
	err := h.srv.store.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketDeliveries).ForEach(func(k, _ []byte) error {
			ids = append(ids, string(k))
			return nil
		})
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return ids
}

// TestIntakeStoresNothing: deliveries that are refused (too large, badly signed, malformed)
// or ignored are answered with their exact status and leave neither a job nor a delivery id
// in the queue.
func TestIntakeStoresNothing(t *testing.T) {
	h := newHarness(t)
	h.opts.MaxBodyBytes = 4096
	h.open()
	huge := ghPR("opened", 7, shaA, false)
	huge = append(huge[:len(huge)-1], []byte(`,"padding":"`+strings.Repeat("x", 5000)+`"}`)...)
	giteaHuge := bytes.Repeat([]byte(" "), 5000)
	for _, tc := range []struct {
		name   string
		send   func() (int, string)
		code   int
		status string
	}{
		{"PR event over the limit, signed", func() (int, string) { return status(h.github("pull_request", "d-1", huge, ghSecret)) },
			http.StatusRequestEntityTooLarge, "body exceeds 4096 bytes"},
		{"Gitea event over the limit, signed", func() (int, string) {
			return status(h.gitea("pull_request", "g-1", giteaHuge, giteaSecret))
		}, http.StatusRequestEntityTooLarge, "body exceeds 4096 bytes"},
		{"unsigned", func() (int, string) {
			return status(h.github("pull_request", "d-2", ghPR("opened", 7, shaA, false), ""))
		},
			http.StatusUnauthorized, forge.ErrBadSignature.Error()},
		{"unsigned garbage", func() (int, string) { return status(h.github("pull_request", "d-3", []byte("{{{"), "")) },
			http.StatusUnauthorized, forge.ErrBadSignature.Error()},
		{"signed garbage", func() (int, string) { return status(h.github("pull_request", "d-4", []byte("{{{"), ghSecret)) },
			http.StatusBadRequest, "GitHub pull_request delivery d-4: payload is not valid JSON"},
		{"unknown event", func() (int, string) {
			return status(h.github("workflow_job", "d-5", mustJSON(map[string]any{"action": "queued"}), ghSecret))
		}, http.StatusAccepted, "ignored"},
		{"Gitea unknown event", func() (int, string) {
			return status(h.gitea("push", "g-2", mustJSON(map[string]any{"ref": "refs/heads/main"}), giteaSecret))
		}, http.StatusAccepted, "ignored"},
		{"closed PR", func() (int, string) {
			return status(h.github("pull_request", "d-6", ghPR("closed", 7, shaA, false), ghSecret))
		},
			http.StatusAccepted, "ignored"},
		{"comment without /recheck", func() (int, string) {
			return status(h.github("issue_comment", "d-7", ghComment(7, 1, "alice", "User", "LGTM"), ghSecret))
		}, http.StatusAccepted, "ignored"},
		{"ping", func() (int, string) {
			return status(h.github("ping", "d-8", mustJSON(map[string]any{"zen": "z"}), ghSecret))
		},
			http.StatusOK, "pong"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, s := tc.send()
			if code != tc.code || s != tc.status {
				t.Errorf("got %d %q, want %d %q", code, s, tc.code, tc.status)
			}
		})
	}
	if jobs, ids := h.storedJobs(), h.storedDeliveries(); len(jobs) != 0 || len(ids) != 0 {
		t.Fatalf("stored jobs %+v and deliveries %v, want none", jobs, ids)
	}
	// None of the ids was taken: the same ids, now valid, are accepted.
	for _, id := range []string{"d-1", "d-2"} {
		if code, s := status(h.github("pull_request", id, ghPR("opened", 7, shaA, false), ghSecret)); code != http.StatusAccepted || s != "queued" {
			t.Errorf("%s valid: %d %q, want 202 queued", id, code, s)
		}
	}
}

// readOnlyStore reopens the server's queue file read-only: every write fails as on a full
// disk, reads still work.
func (h *harness) readOnlyStore() {
	h.t.Helper()
	h.swapStore(&bolt.Options{ReadOnly: true})
}

func (h *harness) writableStore() {
	h.t.Helper()
	h.swapStore(nil)
}

func (h *harness) swapStore(opts *bolt.Options) {
	h.t.Helper()
	if err := h.srv.store.db.Close(); err != nil {
		h.t.Fatal(err)
	}
	db, err := bolt.Open(filepath.Join(h.dir, "queue.db"), 0o600, opts)
	if err != nil {
		h.t.Fatal(err)
	}
	h.srv.store.db = db
}

// TestStoreWriteFails: while the queue takes no write, deliveries are answered 503 and not
// recorded, and a job accepted before runs all the same (uncounted) to its final status;
// later jobs run once writes work again.
func TestStoreWriteFails(t *testing.T) {
	h := newHarness(t)
	h.open()
	if code, s := status(h.github("pull_request", "d-1", ghPR("opened", 7, shaA, false), ghSecret)); code != http.StatusAccepted {
		t.Fatalf("opened: %d %q, want 202", code, s)
	}
	h.readOnlyStore()
	if code, s := status(h.github("pull_request", "d-2", ghPR("opened", 8, shaB, false), ghSecret)); code != http.StatusServiceUnavailable || s != "queue unavailable" {
		t.Fatalf("opened while the store fails: %d %q, want 503 queue unavailable", code, s)
	}
	h.start()
	calls := h.waitFor("final status", finalStatus(shaA))
	if diff := cmp.Diff(reviewCalls(shaA), shorten(calls)); diff != "" {
		t.Fatalf("forge calls (-want +got):\n%s", diff)
	}
	h.stop()
	h.stop = nil

	// The job could not be deleted: it stays stored, uncounted, and runs again after a
	// restart. The refused delivery left no trace: its redelivery is accepted.
	h.writableStore()
	if jobs := h.storedJobs(); len(jobs) != 1 || jobs[0].HeadSHA != shaA || jobs[0].Attempt != 0 {
		t.Fatalf("stored jobs %+v, want PR 7's with attempt 0", jobs)
	}
	h.fc.mu.Lock()
	h.fc.calls = nil
	h.fc.mu.Unlock()
	h.start()
	if code, s := status(h.github("pull_request", "d-2", ghPR("opened", 8, shaB, false), ghSecret)); code != http.StatusAccepted {
		t.Fatalf("redelivered: %d %q, want 202", code, s)
	}
	h.waitFor("final status of PR 8", finalStatus(shaB))
}

// TestStoreUnreadable: a job whose store cannot even be read waits and runs again, instead
// of waiting for a restart or spinning; once the store works it runs to its final status.
func TestStoreUnreadable(t *testing.T) {
	h := newHarness(t)
	log := &lockedBuffer{}
	h.opts.Logger = slog.New(slog.NewJSONHandler(log, nil))
	h.open()
	h.srv.storeRetry = 100 * time.Millisecond
	h.start()
	// The job is stored, then the store goes away before a worker reads it.
	ev, err := forge.ParseGitHub(http.Header{"X-Github-Event": {"pull_request"}, "X-Hub-Signature-256": {"sha256=" + mac(ghPR("opened", 7, shaA, false), ghSecret)}},
		ghPR("opened", 7, shaA, false), []byte(ghSecret))
	if err != nil {
		t.Fatal(err)
	}
	key := jobKey(*ev)
	if _, err := h.srv.store.accept("", key, &job{Event: *ev, Kind: kindReview, HeadSHA: shaA, Enqueued: time.Now()}, time.Now()); err != nil {
		t.Fatal(err)
	}
	h.srv.queue.mu.Lock() // idle workers wait on the queue: none reads the store meanwhile
	err = h.srv.store.db.Close()
	h.srv.queue.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	h.srv.queue.submit(key, kindReview, shaA, 0)
	deadline := time.Now().Add(time.Minute)
	for strings.Count(log.String(), "read job; trying again later") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no retry logged:\n%s", log.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := len(h.fc.snapshot()); n != 0 {
		t.Fatalf("%d forge calls while the job cannot be read", n)
	}
	// Under the queue's lock: the retry that reads the store next takes it too.
	h.srv.queue.mu.Lock()
	db, err := bolt.Open(filepath.Join(h.dir, "queue.db"), 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.srv.store.db = db
	h.srv.queue.mu.Unlock()
	calls := h.waitFor("final status", finalStatus(shaA))
	if diff := cmp.Diff(reviewCalls(shaA), shorten(calls)); diff != "" {
		t.Fatalf("forge calls (-want +got):\n%s", diff)
	}
	h.waitStoreEmpty()
}

// lockedBuffer is a log safe for concurrent writers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestBodiesInFlightAreCapped: anyone can send a webhook body, and each is held in memory
// until its signature is checked, so only MaxBodiesInFlight are read at once; a delivery
// that finds no slot within BodyWait gets 503, and the slot serves the next one once free.
// Before, 300 concurrent unsigned 5 MiB bodies took the server to 957 MiB.
func TestBodiesInFlightAreCapped(t *testing.T) {
	h := newHarness(t)
	h.opts.MaxBodiesInFlight = 1
	h.opts.BodyWait = time.Nanosecond
	h.open()
	pr, pw := io.Pipe()
	slow := httptest.NewRequest(http.MethodPost, "/webhooks/github", pr)
	slow.Header.Set("Content-Type", "application/json")
	slow.Header.Set("X-GitHub-Event", "ping")
	slowDone := make(chan int)
	go func() {
		rec := httptest.NewRecorder()
		h.srv.Handler().ServeHTTP(rec, slow)
		slowDone <- rec.Code
	}()
	// The write returns once the handler reads it: the slow body holds the only slot.
	if _, err := pw.Write([]byte(`{"zen":`)); err != nil {
		t.Fatal(err)
	}
	code, msg := status(h.github("ping", "d-busy", mustJSON(map[string]any{"zen": "z"}), ghSecret))
	if code != http.StatusServiceUnavailable || msg != "busy: 1 webhook bodies are being read" {
		t.Errorf("while the slot is held: %d %q, want 503 busy", code, msg)
	}
	pw.Close()
	if code := <-slowDone; code != http.StatusUnauthorized {
		t.Errorf("unsigned slow body: %d, want 401", code)
	}
	if code, msg := status(h.github("ping", "d-next", mustJSON(map[string]any{"zen": "z"}), ghSecret)); code != http.StatusOK || msg != "pong" {
		t.Errorf("after the slot is free: %d %q, want 200 pong", code, msg)
	}
}
