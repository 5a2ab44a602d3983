package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tiergate/tiergate/internal/render/helm"
)

// Options bounds the workers of a Pool. A zero field takes its default.
type Options struct {
	// Size is the number of worker processes, and so of concurrent renders; default 2.
	Size int
	// Timeout is the wall time one render may take before its worker is killed; default 10s.
	Timeout time.Duration
	// MemoryBytes is the memory one worker may hold (its GOMEMLIMIT and the watchdog's
	// limit); default 512 MiB.
	MemoryBytes int64
	// MaxOutputBytes caps one encoded response; default 64 MiB.
	MaxOutputBytes int64
	// Command runs a worker, a process that calls Serve on its stdin and stdout; default
	// the running binary with the argument helm-worker.
	Command []string
}

// DefaultOptions are the values a zero Options field takes.
var DefaultOptions = Options{Size: 2, Timeout: 10 * time.Second, MemoryBytes: 512 << 20, MaxOutputBytes: 64 << 20}

// ErrClosed is returned by Render on a closed Pool.
var ErrClosed = errors.New("helm sandbox: pool closed")

// Pool renders charts in long-lived worker processes, one request per worker at a time.
// A worker that is killed or crashes is replaced by the next request. Its methods are safe
// for concurrent use.
type Pool struct {
	opts    Options
	slots   chan struct{} // one token per worker that may run
	idle    chan *worker  // started workers waiting for a request
	mu      sync.Mutex    // guards live and closed
	live    map[*worker]struct{}
	closed  bool
	started atomic.Int64
}

// NewPool returns a Pool; it starts workers on demand.
func NewPool(opts Options) *Pool {
	d := DefaultOptions
	if opts.Size <= 0 {
		opts.Size = d.Size
	}
	if opts.Timeout <= 0 {
		opts.Timeout = d.Timeout
	}
	if opts.MemoryBytes <= 0 {
		opts.MemoryBytes = d.MemoryBytes
	}
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = d.MaxOutputBytes
	}
	return &Pool{
		opts: opts, slots: make(chan struct{}, opts.Size), idle: make(chan *worker, opts.Size),
		live: map[*worker]struct{}{},
	}
}

// Started is the number of worker processes the pool has started.
func (p *Pool) Started() int64 { return p.started.Load() }

// Render renders req in a worker, with helm.Render's contract: an error is the chart's
// failure, and a *LimitError when a bound stopped it. It waits for a free worker.
func (p *Pool) Render(ctx context.Context, req helm.Request) (*helm.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.isClosed() {
		return nil, ErrClosed
	}
	name := chartName(req)
	wreq, err := encodeRequest(req, p.opts.Timeout)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", name, err)
	}
	frame, err := encodeFrame(wreq)
	if err != nil {
		return nil, fmt.Errorf("chart %s: encode request: %w", name, err)
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.slots }()
	w, err := p.worker()
	if err != nil {
		return nil, err
	}
	resp, err := p.call(ctx, w, name, frame)
	if err != nil {
		p.drop(w)
		if p.isClosed() {
			return nil, ErrClosed
		}
		return nil, err
	}
	p.idle <- w
	if resp.Failed {
		return nil, errors.New(resp.Err)
	}
	return resp.decode(), nil
}

// worker takes an idle worker that is still running or starts one.
func (p *Pool) worker() (*worker, error) {
	for {
		var w *worker
		select {
		case w = <-p.idle:
		default:
		}
		if w == nil {
			break
		}
		select {
		case <-w.done:
			p.drop(w)
			continue
		default:
		}
		return w, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	cmd := p.opts.Command
	if len(cmd) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("start helm worker: %w", err)
		}
		cmd = []string{exe, "helm-worker"}
	}
	w, err := startWorker(cmd, p.opts.MemoryBytes)
	if err != nil {
		return nil, err
	}
	p.started.Add(1)
	p.live[w] = struct{}{}
	return w, nil
}

// call sends one request to w and waits for its response, the deadline or ctx. Any error
// leaves w unusable.
func (p *Pool) call(ctx context.Context, w *worker, name string, frame []byte) (*wireResponse, error) {
	type reply struct {
		resp *wireResponse
		err  error
	}
	replies := make(chan reply, 1)
	go func() {
		if _, err := w.stdin.Write(frame); err != nil {
			replies <- reply{err: err}
			return
		}
		var resp wireResponse
		err := readFrame(w.stdout, p.opts.MaxOutputBytes, &resp)
		replies <- reply{&resp, err}
	}()
	timer := time.NewTimer(p.opts.Timeout)
	defer timer.Stop()
	select {
	case r := <-replies:
		if r.err == nil {
			return r.resp, nil
		}
		if tooBig := (*errFrameTooBig)(nil); errors.As(r.err, &tooBig) {
			w.kill()
			return nil, &LimitError{Chart: name, Limit: LimitOutput, Bytes: p.opts.MaxOutputBytes}
		}
		if errors.Is(r.err, io.EOF) || errors.Is(r.err, io.ErrUnexpectedEOF) || errors.Is(r.err, syscall.EPIPE) {
			return nil, p.exited(w, name)
		}
		w.kill()
		return nil, fmt.Errorf("chart %s: broken response from the helm worker: %w", name, r.err)
	case <-timer.C:
		w.kill()
		<-replies
		return nil, &LimitError{Chart: name, Limit: LimitTime, Timeout: p.opts.Timeout}
	case <-ctx.Done():
		w.kill()
		<-replies
		return nil, fmt.Errorf("chart %s: render stopped: %w", name, ctx.Err())
	}
}

// exited explains a worker whose stdout broke: it ran out of memory, time, or crashed.
func (p *Pool) exited(w *worker, name string) error {
	select {
	case <-w.done:
	case <-time.After(p.opts.Timeout):
		w.kill() // it closed stdout but lives on
	}
	switch w.exitCode() {
	case ExitMemory:
		return &LimitError{Chart: name, Limit: LimitMemory, Bytes: p.opts.MemoryBytes}
	case ExitTimeout:
		return &LimitError{Chart: name, Limit: LimitTime, Timeout: p.opts.Timeout}
	}
	return fmt.Errorf("chart %s: helm worker failed (%s)", name, w.died())
}

// drop kills w and forgets it.
func (p *Pool) drop(w *worker) {
	w.kill()
	p.mu.Lock()
	delete(p.live, w)
	p.mu.Unlock()
}

func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// Close kills every worker, idle or busy; renders under way fail with ErrClosed.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	live := make([]*worker, 0, len(p.live))
	for w := range p.live {
		live = append(live, w)
	}
	p.live = map[*worker]struct{}{}
	p.mu.Unlock()
	for _, w := range live {
		w.kill()
	}
	return nil
}

func chartName(req helm.Request) string {
	if req.Chart == nil || req.Chart.Metadata == nil {
		return "(none)"
	}
	return req.Chart.Metadata.Name
}
