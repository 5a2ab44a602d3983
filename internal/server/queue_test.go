package server

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestQueueLatestBySeq: two deliveries' submits may come in another order than their
// store commits; the one with the lower sequence does not become the PR's latest, so it
// does not cancel the review of the newer stored job. A later job does.
func TestQueueLatestBySeq(t *testing.T) {
	q := newQueue(prometheus.NewGauge(prometheus.GaugeOpts{Name: "depth"}))
	q.submit("k", kindReview, shaB, 2)
	q.submit("k", kindReview, shaA, 1) // committed first, submitted last
	r, ok := q.next(context.Background())
	if !ok {
		t.Fatal("no run")
	}
	q.setHead(r, shaB) // the run reads the stored job: B
	if err := context.Cause(r.ctx); err != nil {
		t.Fatalf("the review of B was cancelled: %v", err)
	}
	q.submit("k", kindReview, shaC, 3)
	if got, want := context.Cause(r.ctx), "superseded by ccccccc"; got == nil || got.Error() != want {
		t.Fatalf("cause %v, want %s", got, want)
	}
}
