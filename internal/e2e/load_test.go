package e2e

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

// Load test shape: 50 PRs pushed 5 times each, every push delivered twice (the forge's
// redelivery, same delivery id): 500 deliveries, sent over about loadSpan.
const (
	loadPRs    = 50
	loadPushes = 5
	loadSpan   = 15 * time.Second
)

// statusEvent is a commit status as the fake forge received it.
type statusEvent struct {
	state, desc string
	at          time.Time
}

// TestLoadBurst sends a bounded burst of deliveries on loopback to the server wired as bot
// serve wires it (fake GitHub, git-http-backend, 2 workers) and checks that no delivery is
// lost, that every PR's newest head gets exactly one final status, that an older head is
// never left pending and, when superseded, names a newer push of its PR, and that
// goroutines and heap return to their baseline. It logs throughput and latency (delivery
// to final status); run it with -v (docs/reliability.md). It is skipped with -short.
func TestLoadBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: skipped with -short")
	}
	e, heads := newManyPREnv(t, github, loadPRs+1, loadPushes) // PR loadPRs+1 warms up
	var mu sync.Mutex
	statuses := map[string][]statusEvent{}
	prefix := "/repos/" + owner + "/" + repoName + "/statuses/"
	e.fake.Observe(func(c forgetest.Call) {
		sha, ok := strings.CutPrefix(c.Path, prefix)
		if !ok || c.Method != http.MethodPost {
			return
		}
		body, _ := c.Body.(map[string]any)
		state, _ := body["state"].(string)
		desc, _ := body["description"].(string)
		mu.Lock()
		statuses[sha] = append(statuses[sha], statusEvent{state, desc, time.Now()})
		mu.Unlock()
	})
	final := func(sha string) (statusEvent, bool) {
		mu.Lock()
		defer mu.Unlock()
		s := statuses[sha]
		if len(s) == 0 || s[len(s)-1].state == "pending" {
			return statusEvent{}, false
		}
		return s[len(s)-1], true
	}
	in := e.start(true)

	// Warm-up: the mirror exists and connections are pooled before the baseline is taken.
	warm := heads[loadPRs+1][loadPushes-1]
	if code, body := in.send(e.prDeliveryFor(loadPRs+1, warm, "")); code != http.StatusAccepted {
		t.Fatalf("warm-up: %d %s", code, body)
	}
	e.waitUntil("warm-up final status", func() bool { _, ok := final(warm); return ok })
	e.waitLog(`"msg":"job finished"`, 1)
	goBase, heapBase := settle()

	// The burst: one sender per PR, pushes in order, each push delivered twice, the pushes
	// of all PRs spread evenly over loadSpan.
	type sent struct {
		at, accepted time.Time
	}
	cpuStart := cpuTime()
	sentAt := map[string]sent{} // head → its first delivery
	codes := map[string]int{}   // "first 202", "redelivery 200", ...
	start := time.Now()
	var wg sync.WaitGroup
	for n := 1; n <= loadPRs; n++ {
		var ds []delivery
		before := ""
		for _, h := range heads[n] {
			ds = append(ds, e.prDeliveryFor(n, h, before))
			before = h
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k, d := range ds {
				slot := start.Add(loadSpan * time.Duration(k*loadPRs+n-1) / time.Duration(loadPRs*loadPushes))
				time.Sleep(time.Until(slot)) // load shaping, not synchronisation
				// The push, then its delivery: the PR's head is the push's until the next.
				e.fake.SetPR(n, heads[n][k], e.repo.base, false)
				at := time.Now()
				first := postDelivery(in, d)
				accepted := time.Now()
				again := postDelivery(in, d)
				mu.Lock()
				sentAt[heads[n][k]] = sent{at, accepted}
				codes[fmt.Sprintf("first %d", first)]++
				codes[fmt.Sprintf("redelivery %d", again)]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	intake := time.Since(start)
	for n := 1; n <= loadPRs; n++ {
		newest := heads[n][loadPushes-1]
		e.waitUntil("final status of PR "+fmt.Sprint(n), func() bool { _, ok := final(newest); return ok })
	}
	e.waitMetric(in, "tiergate_queue_depth", 0)
	done := time.Since(start)
	cpu := cpuTime() - cpuStart

	// No delivery lost: each first delivery accepted, each redelivery known.
	want := map[string]int{"first 202": loadPRs * loadPushes, "redelivery 200": loadPRs * loadPushes}
	if fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Errorf("answers %v, want %v", codes, want)
	}

	// Per head: the newest exactly one review; an older one nothing, superseded by a newer
	// push, or its own result.
	mu.Lock()
	var latNewest, latAll []time.Duration
	results, superseded, inFlight := 0, 0, 0
	for n := 1; n <= loadPRs; n++ {
		for k, h := range heads[n] {
			got := statuses[h]
			var states []string
			for _, s := range got {
				states = append(states, s.state+" "+s.desc)
			}
			if k == loadPushes-1 {
				want := []string{"pending " + pendingDesc, "failure " + demoDescription}
				if !slices.Equal(states, want) {
					t.Errorf("PR %d newest head %s: statuses %q, want %q", n, h[:7], states, want)
				}
			}
			if len(got) == 0 {
				continue
			}
			last := got[len(got)-1]
			switch {
			case last.state == "pending":
				t.Errorf("PR %d push %d (%s) left pending: %q", n, k+1, h[:7], states)
				continue
			case last.state == "error" && strings.HasPrefix(last.desc, "superseded by "):
				by := strings.TrimPrefix(last.desc, "superseded by ")
				if !slices.ContainsFunc(heads[n][k+1:], func(s string) bool { return strings.HasPrefix(s, by) }) {
					t.Errorf("PR %d push %d superseded by %s, not a newer push of the PR", n, k+1, by)
				}
				superseded++
			case last.state == "failure" && last.desc == demoDescription:
				results++
				// A request in flight when the next push cancels the run may still land;
				// counted, not failed: the result is its own commit's.
				if k < loadPushes-1 && !last.at.Before(sentAt[heads[n][k+1]].accepted) {
					inFlight++
				}
			default:
				t.Errorf("PR %d push %d: unexpected statuses %q", n, k+1, states)
				continue
			}
			d := last.at.Sub(sentAt[h].at)
			latAll = append(latAll, d)
			if k == loadPushes-1 {
				latNewest = append(latNewest, d)
			}
		}
	}
	mu.Unlock()

	// Back to baseline once idle connections are closed.
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	goAfter, heapAfter := settle()
	deadline := time.Now().Add(30 * time.Second)
	for goAfter > goBase && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		http.DefaultTransport.(*http.Transport).CloseIdleConnections()
		goAfter, heapAfter = settle()
	}
	if goAfter > goBase {
		var b strings.Builder
		pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Errorf("goroutines %d after the burst, baseline %d:\n%s", goAfter, goBase, b.String())
	}
	const heapSlack = 32 << 20
	if heapAfter > heapBase+heapSlack {
		t.Errorf("heap %d MiB after the burst, baseline %d MiB (+%d MiB allowed)", heapAfter>>20, heapBase>>20, heapSlack>>20)
	}

	slices.Sort(latNewest)
	slices.Sort(latAll)
	t.Logf("deliveries: %d in %s (%.0f/s); all final statuses after %s", 2*loadPRs*loadPushes, intake.Round(time.Millisecond),
		float64(2*loadPRs*loadPushes)/intake.Seconds(), done.Round(time.Millisecond))
	t.Logf("reviews published: %d (%.1f/s), superseded: %d, heads never started: %d; older heads' results received after the next push was accepted: %d",
		results, float64(results)/done.Seconds(), superseded, loadPRs*loadPushes-results-superseded, inFlight)
	t.Logf("delivery to final status, newest heads: p50 %s p99 %s max %s", pct(latNewest, 50), pct(latNewest, 99), pct(latNewest, 100))
	t.Logf("delivery to final status, every head with one: p50 %s p99 %s (n=%d)", pct(latAll, 50), pct(latAll, 99), len(latAll))
	t.Logf("CPU (user+system) of the test process and its git-http-backend children: %s; load average at the end: %s",
		cpu.Round(time.Millisecond), loadAverage())
	t.Logf("goroutines: baseline %d, after %d; heap: baseline %d MiB, after %d MiB", goBase, goAfter, heapBase>>20, heapAfter>>20)
}

// postDelivery posts d and returns the status code (0 when no answer came).
func postDelivery(in *instance, d delivery) int {
	req, err := http.NewRequest(http.MethodPost, in.http.URL+in.e.fl.endpoint, strings.NewReader(string(d.body)))
	if err != nil {
		return 0
	}
	req.Header = in.e.headers(d)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// settle collects garbage and returns the goroutine count and the live heap in bytes.
func settle() (goroutines int, heap uint64) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return runtime.NumGoroutine(), m.HeapAlloc
}

// pct is the p-th percentile of sorted durations (nearest rank).
func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)].Round(time.Millisecond)
}

// waitUntil polls cond until it holds, failing after waitLimit.
func (e *env) waitUntil(what string, cond func() bool) {
	e.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for !cond() {
		if time.Now().After(deadline) {
			e.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// cpuTime is the user and system CPU time of this process and its waited-for children.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}

// loadAverage is the first field of /proc/loadavg ("?" where there is none): the figures
// depend on what else the machine runs.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}
