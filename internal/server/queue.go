package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// queue schedules the stored jobs in memory: a FIFO of PR keys waiting for a worker, each key
// at most once, and never a key whose review is running. A job that arrives for a running
// PR is run again when the running one ends; if it names another head, the running review
// is cancelled first.
type queue struct {
	mu      sync.Mutex
	pending []string
	prs     map[string]*prState
	wake    chan struct{} // one token: "pending may be non-empty"
	depth   prometheus.Gauge
}

type prState struct {
	queued  bool // in pending
	again   bool // a newer job arrived while running
	running *run
	// latest is the head of the newest review job submitted ("" for a recheck), newest by
	// store sequence: two deliveries' submits may come in another order than their commits.
	latest    string
	latestSeq uint64
}

// run is one review in progress.
type run struct {
	key    string
	ctx    context.Context
	cancel context.CancelCauseFunc
	head   string        // guarded by queue.mu; "" until known
	final  bool          // guarded by queue.mu; the run publishes its final status: not superseded
	retry  bool          // run the stored job again (its final status could not be published)
	delay  time.Duration // with retry: how long to wait before it is queued again
}

// supersededError is the cause of a run cancelled by a push of a newer head.
type supersededError struct{ head string }

func (e *supersededError) Error() string { return "superseded by " + short(e.head) }

func newQueue(depth prometheus.Gauge) *queue {
	return &queue{prs: map[string]*prState{}, wake: make(chan struct{}, 1), depth: depth}
}

// submit schedules the stored job of key; head is the head a review job names ("" for a
// recheck), seq its store sequence (a job submitted after a newer one does not count as the
// latest).
func (q *queue) submit(key string, kind jobKind, head string, seq uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	st := q.prs[key]
	if st == nil {
		st = &prState{}
		q.prs[key] = st
	}
	if seq >= st.latestSeq {
		st.latestSeq = seq
		if kind == kindReview {
			st.latest = head
		} else {
			st.latest = ""
		}
	}
	if r := st.running; r != nil {
		st.again = true
		q.supersede(st, r)
		return
	}
	if !st.queued {
		st.queued = true
		q.push(key)
	}
}

// supersede cancels r when the newest job reviews another head than r does.
func (q *queue) supersede(st *prState, r *run) {
	if st.again && st.latest != "" && r.head != "" && r.head != st.latest && !r.final {
		r.cancel(&supersededError{head: st.latest})
	}
}

func (q *queue) push(key string) {
	q.pending = append(q.pending, key)
	q.depth.Set(float64(len(q.pending)))
	q.signal()
}

func (q *queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// next waits for a pending key and marks it running; ok is false once ctx ends. The run's
// context is a child of ctx.
func (q *queue) next(ctx context.Context) (r *run, ok bool) {
	for {
		q.mu.Lock()
		if ctx.Err() != nil {
			q.mu.Unlock()
			return nil, false
		}
		if len(q.pending) > 0 {
			key := q.pending[0]
			q.pending = q.pending[1:]
			q.depth.Set(float64(len(q.pending)))
			if len(q.pending) > 0 {
				q.signal() // pass the token on to another idle worker
			}
			rctx, cancel := context.WithCancelCause(ctx)
			r = &run{key: key, ctx: rctx, cancel: cancel}
			st := q.prs[key]
			st.queued = false
			st.running = r
			q.mu.Unlock()
			return r, true
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, false
		case <-q.wake:
		}
	}
}

// setHead records the head r reviews, and cancels r at once if a newer head was submitted
// before it was known.
func (q *queue) setHead(r *run, head string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	r.head = head
	if st := q.prs[r.key]; st != nil && st.running == r {
		q.supersede(st, r)
	}
}

// setFinal records that r is about to publish its head's final status: from now on no newer
// head cancels it (the newer job runs after it). It fails when r was cancelled already.
func (q *queue) setFinal(r *run) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := context.Cause(r.ctx); err != nil {
		return err
	}
	r.final = true
	return nil
}

// done ends r and queues its PR again when a newer job arrived or r asked to be retried.
func (q *queue) done(r *run) {
	q.mu.Lock()
	defer q.mu.Unlock()
	r.cancel(nil)
	st := q.prs[r.key]
	if st == nil || st.running != r {
		panic(fmt.Sprintf("queue: run of %s ended twice", r.key))
	}
	st.running = nil
	switch {
	case st.again || r.retry && r.delay == 0:
		st.again = false
		st.queued = true
		q.push(r.key)
	case r.retry:
		// The PR stays known, neither queued nor running, until the timer queues it (or a
		// newer job does, at once).
		time.AfterFunc(r.delay, func() { q.requeue(r.key, st) })
	default:
		delete(q.prs, r.key)
	}
}

// requeue queues key again after a retry's delay, unless a newer job already did.
func (q *queue) requeue(key string, st *prState) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.prs[key] != st || st.running != nil || st.queued {
		return
	}
	st.queued = true
	q.push(key)
}
