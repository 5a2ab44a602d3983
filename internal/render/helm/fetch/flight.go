package fetch

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// flights runs one call per key at a time and keeps its result for the Fetcher's life, so
// base and head, and concurrent releases of one chart, share a pull. A failed call is
// forgotten, so a later caller tries again.
type flights[T any] struct {
	mu sync.Mutex
	m  map[string]*flight[T]
}

type flight[T any] struct {
	done    chan struct{}
	waiters int // callers waiting on done; read by tests
	v       T
	err     error
}

// do returns key's result, running fn once under its own deadline, detached from the first
// caller's cancellation so that one cancelled caller does not fail the others. Each caller
// still returns when its own ctx ends.
func (g *flights[T]) do(ctx context.Context, key string, timeout time.Duration, fn func(context.Context) (T, error)) (T, error) {
	g.mu.Lock()
	if g.m == nil {
		g.m = map[string]*flight[T]{}
	}
	fl, ok := g.m[key]
	if !ok {
		fl = &flight[T]{done: make(chan struct{})}
		g.m[key] = fl
		go g.run(context.WithoutCancel(ctx), key, fl, timeout, fn)
	}
	fl.waiters++
	g.mu.Unlock()
	select {
	case <-fl.done:
		return fl.v, fl.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

func (g *flights[T]) run(ctx context.Context, key string, fl *flight[T], timeout time.Duration, fn func(context.Context) (T, error)) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fl.v, fl.err = fn(ctx)
	var de *deadlineError
	if fl.err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) && !errors.As(fl.err, &de) {
		fl.err = &deadlineError{timeout, fl.err}
	}
	if fl.err != nil {
		g.mu.Lock()
		delete(g.m, key)
		g.mu.Unlock()
	}
	close(fl.done)
}

// deadlineError is a call that ran out of its time; nested flights report it once.
type deadlineError struct {
	timeout time.Duration
	err     error
}

func (e *deadlineError) Error() string {
	return fmt.Sprintf("over the %s fetch deadline: %v", e.timeout, e.err)
}
func (e *deadlineError) Unwrap() error { return e.err }

// waiting counts the callers waiting on unfinished calls (tests wait for it).
func (g *flights[T]) waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, fl := range g.m {
		select {
		case <-fl.done:
		default:
			n += fl.waiters
		}
	}
	return n
}
