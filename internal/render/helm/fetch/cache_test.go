package fetch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
)

func TestCacheByDigestNeedsNoNetwork(t *testing.T) {
	host, reg := newRegistry(t)
	archive := buildChart(t, "app", "1.2.0")
	manifest := pushChart(t, host, "charts/app", "1.2.0", "1.2.0", archive)
	dir := t.TempDir()
	policy := Policy{Allow: []string{"127.0.0.1"}, Loopback: true, CacheDir: dir}
	byDigest := Ref{Kind: KindOCI, URL: "oci://" + host + "/charts/app", Digest: manifest}
	want := got{Version: "1.2.0", Digest: manifest, Archive: digest.FromBytes(archive).String()}

	fetch := func(f *Fetcher, ref Ref) int64 {
		t.Helper()
		before := reg.n.Load()
		c, err := f.Fetch(context.Background(), ref)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, summary(c)); diff != "" {
			t.Errorf("chart (-want +got):\n%s", diff)
		}
		return reg.n.Load() - before
	}
	if n := fetch(New(policy), byDigest); n == 0 {
		t.Fatal("a cold cache made no request")
	}
	for _, d := range []string{manifest, digest.FromBytes(archive).String()} {
		if _, err := os.Stat(filepath.Join(dir, "sha256", digest.Digest(d).Encoded())); err != nil {
			t.Errorf("%s is not cached: %v", d, err)
		}
	}
	if n := fetch(New(policy), byDigest); n != 0 {
		t.Errorf("a new Fetcher on a warm cache made %d requests for a digest, want 0", n)
	}

	// A damaged file is a miss: the layer is fetched again and the file repaired.
	layer := filepath.Join(dir, "sha256", digest.FromBytes(archive).Encoded())
	if err := os.WriteFile(layer, []byte("not the chart"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := fetch(New(policy), byDigest); n != 1 {
		t.Errorf("a damaged layer took %d requests, want 1", n)
	}
	if data, err := os.ReadFile(layer); err != nil || digest.FromBytes(data) != digest.FromBytes(archive) {
		t.Errorf("the damaged layer was not rewritten (%v)", err)
	}

	// A tag is resolved once per Fetcher; the content then comes from the cache.
	byTag := Ref{Kind: KindOCI, URL: "oci://" + host + "/charts/app", Version: "~1.2"}
	f := New(policy)
	if n := fetch(f, byTag); n != 2 {
		t.Errorf("a tag on a warm cache took %d requests, want 2 (tag list, manifest)", n)
	}
	if n := fetch(f, byTag); n != 0 {
		t.Errorf("the same Fetcher resolved the tag again (%d requests)", n)
	}

	// Without CacheDir, content is kept in memory for the Fetcher's life.
	mem := New(Policy{Allow: policy.Allow, Loopback: true})
	fetch(mem, byTag)
	if n := fetch(mem, byDigest); n != 0 {
		t.Errorf("the memory store made %d requests for a digest it holds, want 0", n)
	}
}

func TestCacheHTTPIndexOncePerFetcher(t *testing.T) {
	repo := newHelmRepo(t, "1.0.0", "1.3.0")
	policy := Policy{Allow: []string{"127.0.0.1"}, Loopback: true, CacheDir: t.TempDir()}
	ref := Ref{Kind: KindHTTP, URL: repo.srv.URL + "/repo", Chart: "app", Version: "1.x"}
	for i, want := range []int64{2, 1} { // cold: index and archive; warm: the index only
		before := repo.counter.n.Load()
		c, err := New(policy).Fetch(context.Background(), ref)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(repo.want("1.3.0"), summary(c)); diff != "" {
			t.Errorf("chart (-want +got):\n%s", diff)
		}
		if n := repo.counter.n.Load() - before; n != want {
			t.Errorf("fetch %d: %d requests, want %d", i, n, want)
		}
	}
}

func TestConcurrentFetchIsOnePull(t *testing.T) {
	repo := newHelmRepo(t, "1.3.0")
	repo.block = make(chan struct{})
	f := New(Policy{Allow: []string{"127.0.0.1"}, Loopback: true})
	ref := Ref{Kind: KindHTTP, URL: repo.srv.URL + "/repo", Chart: "app", Version: "1.x"}
	const callers = 8
	charts := make([]*Chart, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() { charts[i], errs[i] = f.Fetch(context.Background(), ref) })
	}
	// Release the server once every caller waits on the one pull.
	for deadline := time.Now().Add(10 * time.Second); f.charts.waiting() < callers; {
		if time.Now().After(deadline) {
			close(repo.block)
			t.Fatalf("%d callers waiting, want %d", f.charts.waiting(), callers)
		}
		time.Sleep(time.Millisecond)
	}
	close(repo.block)
	wg.Wait()
	for i := range callers {
		if errs[i] != nil || charts[i] != charts[0] {
			t.Fatalf("caller %d: %v, chart %p, want the first caller's %p", i, errs[i], charts[i], charts[0])
		}
	}
	if n := repo.counter.n.Load(); n != 2 {
		t.Errorf("%d requests, want 2 (index.yaml, archive)", n)
	}
}

// A caller's cancellation ends its own wait, not the pull others share.
func TestCancelledCallerLeavesThePull(t *testing.T) {
	repo := newHelmRepo(t, "1.3.0")
	repo.block = make(chan struct{})
	f := New(Policy{Allow: []string{"127.0.0.1"}, Loopback: true})
	ref := Ref{Kind: KindHTTP, URL: repo.srv.URL + "/repo", Chart: "app"}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := f.Fetch(ctx, ref); done <- err }()
	for deadline := time.Now().Add(10 * time.Second); f.charts.waiting() < 1; {
		if time.Now().After(deadline) {
			close(repo.block)
			t.Fatal("the caller never waited")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	err := <-done
	close(repo.block)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled caller: %v, want context.Canceled", err)
	}
	c, err := f.Fetch(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(repo.want("1.3.0"), summary(c)); diff != "" {
		t.Errorf("chart (-want +got):\n%s", diff)
	}
	if n := repo.counter.n.Load(); n != 2 {
		t.Errorf("%d requests, want 2: the second caller joins the first pull", n)
	}
}
