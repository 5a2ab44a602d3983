package fetch

import (
	"context"
	"testing"
)

// BenchmarkFetchOCI pulls one chart by digest from a loopback registry with a new Fetcher
// each time: cold (an empty cache directory) and warm (the cache already holds it).
func BenchmarkFetchOCI(b *testing.B) {
	host, _ := newRegistry(b)
	archive := buildChart(b, "app", "1.2.0")
	manifest := pushChart(b, host, "charts/app", "1.2.0", "1.2.0", archive)
	for _, ref := range []struct {
		name string
		ref  Ref
	}{
		{"digest", Ref{Kind: KindOCI, URL: "oci://" + host + "/charts/app", Digest: manifest}},
		{"semver", Ref{Kind: KindOCI, URL: "oci://" + host + "/charts/app", Version: "~1.2"}},
	} {
		b.Run(ref.name+"/cold", func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				b.StartTimer()
				benchFetch(b, Policy{Allow: []string{"127.0.0.1"}, Loopback: true, CacheDir: dir}, ref.ref)
			}
		})
		b.Run(ref.name+"/warm", func(b *testing.B) {
			p := Policy{Allow: []string{"127.0.0.1"}, Loopback: true, CacheDir: b.TempDir()}
			benchFetch(b, p, ref.ref)
			for b.Loop() {
				benchFetch(b, p, ref.ref)
			}
		})
	}
}

// BenchmarkFetchHTTP pulls one chart of a loopback Helm repository, cold and warm.
func BenchmarkFetchHTTP(b *testing.B) {
	repo := newHelmRepo(b, "1.0.0", "1.2.0", "1.3.0")
	ref := Ref{Kind: KindHTTP, URL: repo.srv.URL + "/repo", Chart: "app", Version: "1.x"}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			dir := b.TempDir()
			b.StartTimer()
			benchFetch(b, Policy{Allow: []string{"127.0.0.1"}, Loopback: true, CacheDir: dir}, ref)
		}
	})
	b.Run("warm", func(b *testing.B) {
		p := Policy{Allow: []string{"127.0.0.1"}, Loopback: true, CacheDir: b.TempDir()}
		benchFetch(b, p, ref)
		for b.Loop() {
			benchFetch(b, p, ref)
		}
	})
}

func benchFetch(b *testing.B, p Policy, ref Ref) {
	if _, err := New(p).Fetch(context.Background(), ref); err != nil {
		b.Fatal(err)
	}
}
