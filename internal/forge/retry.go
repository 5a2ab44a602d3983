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
	// AttemptTimeout bounds one attempt, reading the response body included (0: 30 s): a
	// forge that stops answering costs one attempt, not the whole request's deadline.
	AttemptTimeout time.Duration
	// MaxRetries bounds the retries of failures for which the forge names no wait (5xx,
	// transport errors, attempt timeouts; 0: 8, about 50 s of backoff at most). Waits the
	// forge asks for (Retry-After, rate-limit resets) are honoured while the deadline allows.
	MaxRetries int
}

const (
	backoffBase = 200 * time.Millisecond
	backoffMax  = 30 * time.Second
	// waitCap bounds a wait the forge asks for (Retry-After, X-RateLimit-Reset).
	waitCap = 5 * time.Minute
	// secondaryWait is GitHub's advice for a secondary rate limit answered without
	// Retry-After or X-RateLimit-Remaining: "wait for at least one minute before retrying"
	// (docs.github.com, "Rate limits for the REST API", exceeding the rate limit).
	secondaryWait         = time.Minute
	defaultAttemptTimeout = 30 * time.Second
	defaultMaxRetries     = 8
	// peekLimit bounds the error body read to tell a secondary rate limit from a refusal.
	peekLimit = 1 << 16
)

// retryTransport repeats a request on 5xx, 429, rate-limit 403s, transport errors and
// attempt timeouts until it succeeds, fails for another reason, runs out of retries, or
// the request's context ends. Every forge call is retried on those statuses, POSTs
// included: the forges answer them before acting. A request that creates something
// (withoutBlindRetry) is not repeated after a transport error or an attempt timeout: the
// forge may have carried it out, so writeOnce looks for it first.
type retryTransport struct {
	next           http.RoundTripper
	kind           Kind
	opts           RetryOptions
	sleep          func(ctx context.Context, d time.Duration) error
	attemptTimeout time.Duration
	maxRetries     int
}

func newRetryTransport(kind Kind, next http.RoundTripper, opts RetryOptions) *retryTransport {
	if next == nil {
		next = http.DefaultTransport
	}
	sleep := opts.Sleep
	if sleep == nil {
		sleep = sleepCtx
	}
	t := &retryTransport{next: next, kind: kind, opts: opts, sleep: sleep,
		attemptTimeout: opts.AttemptTimeout, maxRetries: opts.MaxRetries}
	if t.attemptTimeout <= 0 {
		t.attemptTimeout = defaultAttemptTimeout
	}
	if t.maxRetries <= 0 {
		t.maxRetries = defaultMaxRetries
	}
	return t
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	retries := 0
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, t.attemptTimeout)
		r := req.Clone(actx)
		if body != nil {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		resp, err := t.next.RoundTrip(r)
		t.observe(req.Method, resp)
		if resp != nil {
			resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
		} else {
			cancel()
		}
		if ctx.Err() != nil {
			return resp, err
		}
		if err != nil && !blindRetryAllowed(ctx) {
			// The forge may have carried it out: the caller looks before it asks again.
			return nil, &UnansweredError{Err: err}
		}
		if resp != nil && (resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests) {
			peekBody(resp)
		}
		wait, retry, told := retryAfter(resp, err, attempt)
		if !told {
			retries++
		}
		if !retry || retries > t.maxRetries || !fitsDeadline(ctx, wait) {
			return resp, err
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, peekLimit))
			resp.Body.Close()
		}
		if err := t.sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// cancelBody ends an attempt's context once its body is closed: the attempt timeout covers
// reading the body too.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// peekBody reads the start of an error body, so that retryAfter can read its message, and
// puts it back in front of the rest.
func peekBody(resp *http.Response) {
	head, _ := io.ReadAll(io.LimitReader(resp.Body, peekLimit))
	resp.Body = &peekedBody{Reader: io.MultiReader(bytes.NewReader(head), resp.Body), head: head, closer: resp.Body}
}

type peekedBody struct {
	io.Reader
	head   []byte
	closer io.Closer
}

func (b *peekedBody) Close() error { return b.closer.Close() }

// secondaryLimit reports whether resp's body says a secondary rate limit was hit; GitHub
// answers those 403 or 429, sometimes without Retry-After.
func secondaryLimit(resp *http.Response) bool {
	b, ok := resp.Body.(*peekedBody)
	return ok && bytes.Contains(bytes.ToLower(b.head), []byte("secondary rate limit"))
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

// retryAfter decides whether an attempt is worth repeating and after how long; told is
// true when the forge named the wait (those retries are not counted against MaxRetries).
func retryAfter(resp *http.Response, err error, attempt int) (wait time.Duration, retry, told bool) {
	if err != nil {
		return backoff(attempt), true, false
	}
	h := resp.Header
	switch {
	case resp.StatusCode >= 500, resp.StatusCode == http.StatusTooManyRequests:
	case resp.StatusCode == http.StatusForbidden && (h.Get("Retry-After") != "" || h.Get("X-RateLimit-Remaining") == "0"):
	case resp.StatusCode == http.StatusForbidden && secondaryLimit(resp):
	default:
		return 0, false, false
	}
	if d, ok := serverWait(h); ok { // at least backoffBase: a reset in the past is clock skew
		return min(max(d, backoffBase), waitCap), true, true
	}
	if secondaryLimit(resp) {
		return secondaryWait, true, true
	}
	return backoff(attempt), true, false
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
