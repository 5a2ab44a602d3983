package forge

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

// RequestObserver is told about every HTTP attempt a client makes to a forge (status 0:
// no response), so that the server can count forge requests and errors by status.
type RequestObserver func(forge Kind, method string, status int)

// RetryOptions tunes the retrying transport under both clients; the zero value is the
// production default.
type RetryOptions struct {
	// Observer, when set, is called once per attempt.
	Observer RequestObserver
	// Sleep waits between attempts; nil waits on a timer. Tests inject a fake.
	Sleep func(ctx context.Context, d time.Duration) error
}

const (
	backoffBase = 200 * time.Millisecond
	backoffMax  = 30 * time.Second
	// waitCap bounds a wait the forge asks for (Retry-After, X-RateLimit-Reset).
	waitCap = 5 * time.Minute
)

// retryTransport repeats a request on 5xx, 429, rate-limit 403s and transport errors
// until it succeeds, fails for another reason, or the request's context ends. Every
// forge call is retried, POSTs included: the forges answer these statuses before acting.
type retryTransport struct {
	next  http.RoundTripper
	kind  Kind
	opts  RetryOptions
	sleep func(ctx context.Context, d time.Duration) error
}

func newRetryTransport(kind Kind, next http.RoundTripper, opts RetryOptions) *retryTransport {
	if next == nil {
		next = http.DefaultTransport
	}
	sleep := opts.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	return &retryTransport{next: next, kind: kind, opts: opts, sleep: sleep}
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		r := req.Clone(ctx)
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		resp, err := t.next.RoundTrip(r)
		t.observe(req.Method, resp)
		if ctx.Err() != nil {
			return resp, err
		}
		wait, retry := retryAfter(resp, err, attempt)
		if !retry || !fitsDeadline(ctx, wait) {
			return resp, err
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			resp.Body.Close()
		}
		if err := t.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

func (t *retryTransport) observe(method string, resp *http.Response) {
	if t.opts.Observer == nil {
		return
	}
	status := 0
	if resp != nil {
		status = resp.StatusCode
	}
	t.opts.Observer(t.kind, method, status)
}

// readBody buffers the request body so that every attempt can send it again.
func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}

// retryAfter decides whether an attempt is worth repeating and after how long.
func retryAfter(resp *http.Response, err error, attempt int) (time.Duration, bool) {
	if err != nil {
		return backoff(attempt), true
	}
	h := resp.Header
	switch {
	case resp.StatusCode >= 500, resp.StatusCode == http.StatusTooManyRequests:
	case resp.StatusCode == http.StatusForbidden && (h.Get("Retry-After") != "" || h.Get("X-RateLimit-Remaining") == "0"):
	default:
		return 0, false
	}
	if d, ok := serverWait(h); ok { // at least backoffBase: a reset in the past is clock skew
		return min(max(d, backoffBase), waitCap), true
	}
	return backoff(attempt), true
}

// serverWait reads the wait the forge asks for: Retry-After (seconds or a date), or the
// time until X-RateLimit-Reset when the quota is spent, measured on the forge's clock.
func serverWait(h http.Header) (time.Duration, bool) {
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.Atoi(v); err == nil && s >= 0 {
			return time.Duration(s) * time.Second, true
		}
		if at, err := http.ParseTime(v); err == nil {
			return max(at.Sub(serverNow(h)), 0), true
		}
	}
	if h.Get("X-RateLimit-Remaining") == "0" {
		if s, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return max(time.Unix(s, 0).Sub(serverNow(h)), 0), true
		}
	}
	return 0, false
}

func serverNow(h http.Header) time.Time {
	if at, err := http.ParseTime(h.Get("Date")); err == nil {
		return at
	}
	return time.Now()
}

// backoff is exponential from backoffBase, capped at backoffMax, with equal jitter.
func backoff(attempt int) time.Duration {
	d := backoffMax
	if attempt < 16 {
		d = min(backoffBase<<attempt, backoffMax)
	}
	return d/2 + rand.N(d/2+1)
}

// fitsDeadline is false when ctx ends before the wait does: the last answer is returned
// at once instead of sleeping in vain.
func fitsDeadline(ctx context.Context, wait time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) > wait
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
