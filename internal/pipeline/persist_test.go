package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/cachestore"
	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/helm"
)

// countingHelm renders charts in process and counts the renders.
type countingHelm struct{ n *atomic.Int64 }

func (c countingHelm) Render(ctx context.Context, req helm.Request) (*helm.Result, error) {
	c.n.Add(1)
	return helm.Render(ctx, req)
}

// filtered is a Store that never gives entries whose key starts with one of drop.
type filtered struct {
	render.Store
	drop []string
}

func (f filtered) Get(key string) ([]byte, bool) {
	for _, p := range f.drop {
		if strings.HasPrefix(key, p) {
			return nil, false
		}
	}
	return f.Store.Get(key)
}

// persistedReview reviews base → head as a new process would: a new render.Cache on the
// cache folder dir (its store wrapped by wrap when set), closed at the end. It returns the
// JSON report without timings, the cache's counters and the store's, and sets charts to
// the charts it rendered.
func persistedReview(t *testing.T, dir, base, head string, wrap func(render.Store) render.Store, charts ...*int64) (string, render.CacheStats, cachestore.Stats) {
	t.Helper()
	st, err := cachestore.Open(dir, "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	c := render.NewCache(0)
	var s render.Store = st
	if wrap != nil {
		s = wrap(st)
	}
	c.Persist(s)
	var n atomic.Int64
	got := reviewJSON(t, base, head, Options{Cache: c, Helm: countingHelm{&n}})
	for _, p := range charts {
		*p = n.Load()
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return got, c.Stats(), st.Stats()
}

// TestPersistentCacheEqualsRebuild reviews every scenario with a full rebuild, then as
// three processes sharing one cache folder: the first fills it, the second builds nothing
// and renders no chart (every build, its objects and every chart's render come from the
// folder), the third finds only builds and renders (their objects are not given: each
// build runs again). Each report equals the rebuild's.
func TestPersistentCacheEqualsRebuild(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/scenarios/*")
	nested, _ := filepath.Glob("../../testdata/scenarios/*/*") // sets such as secret-errors/r10
	dirs = append(dirs, nested...)
	shared, _ := filepath.Glob("../../../shared/scenarios/*")
	var rendered int64 // charts the first processes render: the scenarios have some
	defer func() {
		if rendered == 0 {
			t.Error("no scenario rendered a chart: the test does not check stored renders")
		}
	}()
	for _, dir := range append(dirs, shared...) {
		if _, err := os.Stat(filepath.Join(dir, "head")); err != nil {
			continue
		}
		t.Run(strings.TrimPrefix(dir, "../../testdata/scenarios/"), func(t *testing.T) {
			base, head := filepath.Join(dir, "base"), filepath.Join(dir, "head")
			want := reviewJSON(t, base, head, Options{NoReuse: true})
			cache := t.TempDir()
			var charts1, charts2 int64
			got, first, _ := persistedReview(t, cache, base, head, nil, &charts1)
			if got != want {
				t.Errorf("first process: the persistent cache changes the report:\n%s", cmp.Diff(want, got))
			}
			got, second, st := persistedReview(t, cache, base, head, nil, &charts2)
			rendered += charts1
			if charts2 != 0 {
				t.Errorf("second process rendered %d charts (the first %d), want 0", charts2, charts1)
			}
			if got != want {
				t.Errorf("second process: reuse from the folder changes the report:\n%s", cmp.Diff(want, got))
			}
			if second.Misses != 0 || first.Misses > 0 && st.Hits == 0 {
				t.Errorf("second process: %d builds missed (want 0), %d store hits; the first missed %d",
					second.Misses, st.Hits, first.Misses)
			}
			got, third, _ := persistedReview(t, cache, base, head, func(s render.Store) render.Store { return filtered{s, []string{"objects\x00"}} })
			if got != want {
				t.Errorf("third process: builds from the folder, made again for their objects, change the report:\n%s", cmp.Diff(want, got))
			}
			if third.Misses != 0 {
				t.Errorf("third process: %d builds missed, want 0", third.Misses)
			}
		})
	}
}

// TestCorruptCacheIsAMiss damages every entry of a filled cache folder (a byte flipped, a
// file cut short, a file emptied, in turn): the next review equals the rebuild, builds
// again, and counts the damaged entries it reads as corrupt.
func TestCorruptCacheIsAMiss(t *testing.T) {
	dir := "../../testdata/scenarios/demo"
	base, head := filepath.Join(dir, "base"), filepath.Join(dir, "head")
	want := reviewJSON(t, base, head, Options{NoReuse: true})
	cache := t.TempDir()
	persistedReview(t, cache, base, head, nil)
	var files []string
	_ = filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != "lock" {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Fatal("the first review stored nothing")
	}
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch i % 3 {
		case 0:
			data[len(data)-1] ^= 0x20
		case 1:
			data = data[:len(data)/2]
		default:
			data = nil
		}
		if err := os.WriteFile(f, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, stats, st := persistedReview(t, cache, base, head, nil)
	if got != want {
		t.Errorf("a damaged cache changes the report:\n%s", cmp.Diff(want, got))
	}
	// The base render stores its builds again, and the head render finds those: store
	// hits are the head's, never a damaged entry.
	if st.Corrupt == 0 || stats.Misses == 0 {
		t.Errorf("corrupt entries %d (want > 0), builds missed %d (want > 0)", st.Corrupt, stats.Misses)
	}
}
