package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// Exit codes a worker ends with when it stops itself; the parent reads them.
const (
	// ExitMemory: the worker's memory passed its GOMEMLIMIT.
	ExitMemory = 3
	// ExitTimeout: a render outlived the request's timeout (the parent should have killed
	// the worker first; this bounds a worker whose parent is gone).
	ExitTimeout = 4
)

// watchInterval is how often the heap watchdog reads the runtime's memory.
const watchInterval = 10 * time.Millisecond

// timeoutGrace is how long past a request's timeout a worker waits for its parent's kill.
const timeoutGrace = time.Second

// Serve is the worker's loop: it reads requests from r, renders each with render and
// writes the response to w, one at a time, until r ends (nil) or a frame is broken (the
// error). A render's error or panic goes back as the response's error text. When the
// process has a memory limit (GOMEMLIMIT), a watchdog exits it with ExitMemory once the
// runtime holds more than the limit; a render that outlives its request's timeout exits it
// with ExitTimeout. Serve is meant to run as the whole process (`bot helm-worker`).
func Serve(r io.Reader, w io.Writer, render RenderFunc) error {
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		go watchMemory(limit)
	}
	for {
		var req wireRequest
		if err := readFrame(r, math.MaxUint32, &req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read request: %w", err)
		}
		resp := serveOne(render, &req)
		frame, err := encodeFrame(resp)
		if err != nil {
			frame, err = encodeFrame(&wireResponse{Failed: true, Err: "encode result: " + err.Error()})
			if err != nil {
				return err
			}
		}
		if _, err := w.Write(frame); err != nil {
			return fmt.Errorf("write response: %w", err)
		}
	}
}

func serveOne(render RenderFunc, req *wireRequest) (resp *wireResponse) {
	ctx := context.Background()
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
		// The parent kills the worker at Timeout; this is for a parent that is gone.
		stop := time.AfterFunc(req.Timeout+timeoutGrace, func() {
			fmt.Fprintf(os.Stderr, "helm-worker: render exceeded %s\n", req.Timeout)
			os.Exit(ExitTimeout)
		})
		defer stop.Stop()
	}
	defer func() {
		if p := recover(); p != nil {
			resp = &wireResponse{Failed: true, Err: fmt.Sprintf("chart %s: render panicked: %v", wireChartName(req.Chart), p)}
		}
	}()
	res, err := render(ctx, req.decode())
	resp, encErr := encodeResponse(res, err)
	if encErr != nil {
		return &wireResponse{Failed: true, Err: "encode result: " + encErr.Error()}
	}
	return resp
}

// watchMemory exits the process once the memory the runtime holds from the OS (what
// GOMEMLIMIT bounds: all mapped memory less the released heap) passes limit. GOMEMLIMIT is
// soft: it makes the collector work harder, it does not stop an allocation.
func watchMemory(limit int64) {
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	for range time.Tick(watchInterval) {
		metrics.Read(samples)
		used := int64(samples[0].Value.Uint64() - samples[1].Value.Uint64())
		if used > limit {
			fmt.Fprintf(os.Stderr, "helm-worker: memory %d bytes exceeds limit %d\n", used, limit)
			os.Exit(ExitMemory)
		}
	}
}

func wireChartName(c *wireChart) string {
	if c == nil || c.Metadata == nil {
		return "(none)"
	}
	return c.Metadata.Name
}
