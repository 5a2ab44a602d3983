package forge_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/forge/forgetest"
)

var repo = forge.Repo{Owner: "acme", Name: "fleet", CloneURL: "https://example.test/acme/fleet.git"}

// sleeper replaces the retry wait: it records the durations and returns at once.
type sleeper struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.d = append(s.d, d)
	return ctx.Err()
}

func (s *sleeper) waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// observed records what the RequestObserver hook sees.
type observed struct {
	mu  sync.Mutex
	got []string
}

func (o *observed) observe(k forge.Kind, method string, status int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, string(k)+" "+method+" "+strconv.Itoa(status))
}

func assertCalls(t *testing.T, srv *forgetest.Server, want []forgetest.Call) {
	t.Helper()
	if d := cmp.Diff(want, srv.Calls()); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
}

// paths lists the calls as "METHOD path".
func paths(srv *forgetest.Server) []string {
	var out []string
	for _, c := range srv.Calls() {
		out = append(out, c.Method+" "+c.Path)
	}
	return out
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// multiHunk is a patch of two hunks with a deletion, a trailing-newline marker and an
// added line that itself starts with "++".
const multiHunk = "@@ -1,4 +1,5 @@\n" +
	" apiVersion: v1\n" + // 1
	"-kind: ConfigMap\n" +
	"+kind: Secret\n" + // 2
	"+type: Opaque\n" + // 3
	" metadata:\n" + // 4
	"   name: a\n" + // 5
	"@@ -20,3 +21,4 @@ data:\n" +
	"   x: 1\n" + // 21
	"-  y: 2\n" +
	"+  y: 3\n" + // 22
	"+++ z: 4\n" + // 23
	"   w: 5\n" + // 24
	"\\ No newline at end of file"

var multiHunkLines = map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 21: true, 22: true, 23: true, 24: true}
