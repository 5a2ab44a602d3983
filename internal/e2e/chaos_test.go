package e2e

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// chaosSeedEnv names the environment variable that replays TestLoadChaos with the delivery
// order of a seed it logged.
const chaosSeedEnv = "TIERGATE_E2E_CHAOS_SEED"

// Shape of TestLoadChaos: 20 PRs pushed 10 times each; every push is delivered twice and
// 100 random pushes a third time (same delivery id): 500 deliveries in random order.
const (
	chaosPRs     = 20
	chaosPushes  = 10
	chaosExtra   = 100
	chaosSenders = 8
)

// TestLoadChaos sends 500 deliveries over 20 PRs in random order, duplicate delivery ids
// included, to server processes killed with SIGKILL twice during the burst (after a third
// and two thirds of the answers); a delivery that got no answer is sent again to the next
// process. In the end every PR's newest head has exactly one final status, the review's
// (failure, the demo's findings), every PR one summary comment, no head more than one
// line-comment review and no head is left pending. It logs the figures: time to drain,
// runs per PR, peak RSS of the server processes. GitHub and Gitea (the child process speaks
// a token to either). It takes seconds; -short skips it.
func TestLoadChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: skipped with -short")
	}
	eachFlavour(t, []flavour{github, gitea}, testLoadChaos)
}

// testLoadChaos is TestLoadChaos on the forge fl.
func testLoadChaos(t *testing.T, fl flavour) {
	e, heads := newManyPREnv(t, fl, chaosPRs, chaosPushes)
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(chaosSeedEnv); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", chaosSeedEnv, v, err)
		}
		seed = n
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	t.Logf("seed %d (%s replays it)", seed, chaosSeedEnv)
	var all []delivery
	for n := 1; n <= chaosPRs; n++ {
		before := ""
		for _, h := range heads[n] {
			d := e.prDeliveryFor(n, h, before)
			all = append(all, d, d)
			before = h
		}
	}
	for range chaosExtra {
		all = append(all, all[rng.IntN(len(all))])
	}
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })

	var mu sync.Mutex
	next, answered := 0, 0
	codes := map[int]int{}
	var maxRSS []int64
	// burst sends the deliveries left through c until they are all answered or c dies.
	burst := func(c *child) {
		var wg sync.WaitGroup
		for range chaosSenders {
			wg.Go(func() {
				for {
					mu.Lock()
					if next == len(all) {
						mu.Unlock()
						return
					}
					i := next
					next++
					mu.Unlock()
					code, err := c.send(all[i])
					mu.Lock()
					if err != nil {
						// The process died: the delivery goes again to the next one, after the
						// others left (a sender gives up on a dead process).
						all = append(all, all[i])
						mu.Unlock()
						return
					}
					codes[code]++
					answered++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}
	rss := func(c *child) {
		if ru, ok := c.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			maxRSS = append(maxRSS, ru.Maxrss)
		}
	}
	start := time.Now()
	for _, at := range []int{len(all) / 3, 2 * len(all) / 3} {
		c := e.startChild(true)
		done := make(chan struct{})
		go func() { burst(c); close(done) }()
		e.waitUntil(fmt.Sprintf("%d answers", at), func() bool {
			mu.Lock()
			defer mu.Unlock()
			return answered >= at
		})
		c.kill()
		<-done
		rss(c)
		checkQueueFile(t, e.dataDir)
	}
	last := e.startChild(true)
	burst(last)
	mu.Lock()
	intake := time.Since(start)
	if next != len(all) {
		t.Fatalf("%d of %d deliveries sent", next, len(all))
	}
	mu.Unlock()
	for n := 1; n <= chaosPRs; n++ {
		e.waitStatus(heads[n][chaosPushes-1])
	}
	drained := time.Since(start)
	// Jobs of late deliveries may still be stored: let processes finish them.
	last.kill()
	rss(last)
	for round := 0; ; round++ {
		left := checkQueueFile(t, e.dataDir)
		if left == 0 {
			break
		}
		if round == 3 {
			t.Fatalf("%d jobs stored after three more processes", left)
		}
		finished := strings.Count(e.log.String(), `"msg":"job finished"`)
		c := e.startChild(true)
		e.waitLog(`"msg":"job finished"`, finished+left)
		c.kill()
		rss(c)
	}

	statuses := map[string][]string{}
	runs := map[int]int{}
	for _, cl := range e.publishing(e.fake.Calls()) {
		if sha, ok := strings.CutPrefix(cl.Op, "POST "+e.repoPath()+"/statuses/"); ok {
			statuses[sha] = append(statuses[sha], cl.Detail)
		}
		var n int
		if _, err := fmt.Sscanf(strings.TrimPrefix(cl.Op, "GET "+e.repoPath()+"/pulls/"), "%d", &n); err == nil &&
			!strings.Contains(cl.Op, "/files") && !strings.Contains(cl.Op, ".diff") && !strings.Contains(cl.Op, "/reviews") {
			runs[n]++
		}
	}
	final := "failure [tiergate] " + demoDescription
	var perPR []int
	for n := 1; n <= chaosPRs; n++ {
		newest := heads[n][chaosPushes-1]
		finals := 0
		for _, s := range statuses[newest] {
			if !strings.HasPrefix(s, "pending ") {
				finals++
			}
		}
		if got := statuses[newest]; finals != 1 || got[len(got)-1] != final {
			t.Errorf("PR %d newest head: statuses %q, want exactly one final status, %q, last", n, got, final)
		}
		for i, h := range heads[n][:chaosPushes-1] {
			if got := statuses[h]; len(got) > 0 && strings.HasPrefix(got[len(got)-1], "pending ") {
				t.Errorf("PR %d push %d left pending: %q", n, i+1, got)
			}
		}
		summaries := 0
		for _, c := range e.fake.Comments(n) {
			if strings.HasPrefix(c.Body, summaryMarker) {
				summaries++
			}
		}
		if summaries != 1 {
			t.Errorf("PR %d has %d summary comments, want 1", n, summaries)
		}
		reviewed := e.fake.ReviewCommits(n)
		for _, h := range heads[n] {
			if k := strings.Count(strings.Join(reviewed, " "), h); k > 1 {
				t.Errorf("PR %d head %s has %d line-comment reviews, want at most 1", n, h[:7], k)
			}
		}
		perPR = append(perPR, runs[n])
	}
	slices.Sort(perPR)
	mu.Lock()
	t.Logf("deliveries %d (202: %d, 200 duplicate or reviewed: %d), intake %s, all newest heads final after %s",
		len(all), codes[http.StatusAccepted], codes[http.StatusOK], intake.Round(time.Millisecond), drained.Round(time.Millisecond))
	mu.Unlock()
	t.Logf("runs per PR (reads of the PR): min %d, median %d, max %d; peak RSS per process (KiB): %v",
		perPR[0], perPR[len(perPR)/2], perPR[len(perPR)-1], maxRSS)
}
