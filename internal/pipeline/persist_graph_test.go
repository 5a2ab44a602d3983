package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/cachestore"
	"github.com/tiergate/tiergate/internal/render"
	"github.com/tiergate/tiergate/internal/render/graph"
)

// graphCounter counts the whole graphs a Store stores and gives; bad, when set, replaces
// every stored graph with what it returns.
type graphCounter struct {
	render.Store
	puts, hits *atomic.Int64
	bad        func(data []byte) []byte
}

// storedCharts and storedReleases count, over the whole test, the stored graphs that hold in-repo charts
// (a cluster's HelmCharts) and those that hold chart renders (release values).
var storedCharts, storedReleases atomic.Int64

func (g graphCounter) Get(key string) ([]byte, bool) {
	data, ok := g.Store.Get(key)
	if ok && strings.HasPrefix(key, "graphs\x00") {
		g.hits.Add(1)
		if g.bad != nil {
			data = g.bad(data)
		}
	}
	return data, ok
}

func (g graphCounter) Put(key string, data []byte) {
	if strings.HasPrefix(key, "graphs\x00") {
		g.puts.Add(1)
		if strings.Contains(string(data), `"Charts":[{`) {
			storedCharts.Add(1)
		}
		if strings.Contains(string(data), `"Values":[{`) {
			storedReleases.Add(1)
		}
	}
	g.Store.Put(key, data)
}

// contentID names a folder's tree by its content, as a git tree hash does: the tree id a
// graph is kept under.
func contentID(src *graph.Snapshot) string {
	var names []string
	for rel := range src.Types {
		names = append(names, rel)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, rel := range names {
		data, _ := src.Read(rel)
		b.WriteString(rel + "\x00" + src.Types[rel].String() + "\x00" + graph.Digest(data) + "\x00" + src.Links[rel] + "\n")
	}
	return "test tree " + graph.Digest([]byte(b.String()))
}

// graphReview reviews base → head read with content ids, as a new process on the cache
// folder dir, its store wrapped by wrap; it returns the JSON report without timings and
// the cache's counters.
func graphReview(t *testing.T, dir, base, head string, wrap func(render.Store) render.Store) (string, render.CacheStats) {
	t.Helper()
	st, err := cachestore.Open(dir, "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	c := render.NewCache(0)
	c.Persist(wrap(st))
	b, err := ReadDir(base, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := ReadDir(head, graph.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	b.Source.ID, h.Source.ID = contentID(b.Source.Snapshot), contentID(h.Source.Snapshot)
	b.Rev, h.Rev = "base", "head"
	var n atomic.Int64
	res, err := Trees(context.Background(), b, h, Options{Cache: c, Helm: countingHelm{&n}})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	res.Report.Timings = nil
	data, err := json.MarshalIndent(res.Report, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data), c.Stats()
}

// TestPersistedGraphEqualsRebuild reviews every scenario with a full rebuild, then as
// processes sharing one cache folder whose trees have ids (as git trees do): the first
// stores the whole graphs it may keep, the second takes every one of them from the
// folder, building nothing, the third finds each stored graph damaged (cut short, another
// key's, an object missing, an in-repo chart's digest not the tree's, a release value of
// another type) and renders again. Each report equals the rebuild's. Graphs with chart
// renders and in-repo charts are stored (helm-in-repo, helm-state-rules, ...); the head of
// helm-chart-version-unchanged keeps its prior commit's chart, which the tree does not
// hold, so only its base is stored, and the head renders on the base read from the folder.
func TestPersistedGraphEqualsRebuild(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/scenarios/*")
	shared, _ := filepath.Glob("../../../shared/scenarios/*")
	var stored, notStored int
	for _, dir := range append(dirs, shared...) {
		if _, err := os.Stat(filepath.Join(dir, "head")); err != nil {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			base, head := filepath.Join(dir, "base"), filepath.Join(dir, "head")
			want := reviewJSON(t, base, head, Options{NoReuse: true})
			cache := t.TempDir()
			var puts, hits, puts2, hits2, hits3 atomic.Int64
			got, _ := graphReview(t, cache, base, head, func(s render.Store) render.Store { return graphCounter{s, &puts, &hits, nil} })
			if got != want {
				t.Errorf("first process: the persistent cache changes the report:\n%s", cmp.Diff(want, got))
			}
			if hits.Load() != 0 {
				t.Errorf("first process: %d graphs from an empty folder", hits.Load())
			}
			if filepath.Base(dir) == "helm-chart-version-unchanged" && puts.Load() != 1 {
				t.Errorf("%d graphs stored, want the base's alone (the head keeps its prior's chart)", puts.Load())
			}
			if puts.Load() == 0 {
				notStored++
				return
			}
			stored++
			got, st := graphReview(t, cache, base, head, func(s render.Store) render.Store { return graphCounter{s, &puts2, &hits2, nil} })
			if got != want {
				t.Errorf("second process: graphs from the folder change the report:\n%s", cmp.Diff(want, got))
			}
			if hits2.Load() != puts.Load() || puts2.Load() != 0 {
				t.Errorf("second process: %d graphs read, %d stored; the first stored %d", hits2.Load(), puts2.Load(), puts.Load())
			}
			if puts.Load() == 2 && st.Misses+st.Hits != 0 {
				t.Errorf("second process: %d builds looked up, want none (both graphs stored)", st.Misses+st.Hits)
			}
			for i, bad := range []func([]byte) []byte{
				func(d []byte) []byte { return d[:len(d)/2] },
				func(d []byte) []byte { return []byte(strings.Replace(string(d), `"Key":"graph`, `"Key":"other`, 1)) },
				func(d []byte) []byte {
					return []byte(strings.Replace(string(d), `"Objects":[{`, `"Objects":[null,{`, 1))
				},
				func(d []byte) []byte {
					return []byte(strings.Replace(string(d), `"Digest":"repo:`, `"Digest":"repo:x`, 1))
				},
				func(d []byte) []byte {
					return []byte(strings.Replace(string(d), `"Values":[{"k":12`, `"Values":[{"k":99`, 1))
				},
			} {
				got, _ := graphReview(t, cache, base, head, func(s render.Store) render.Store { return graphCounter{s, &puts2, &hits3, bad} })
				if got != want {
					t.Errorf("damaged graphs (%d): the report changes:\n%s", i, cmp.Diff(want, got))
				}
			}
			if hits3.Load() == 0 {
				t.Error("no damaged graph was read: the damage is not checked")
			}
		})
	}
	t.Logf("%d scenarios with stored graphs, %d without", stored, notStored)
	t.Logf("%d stored graphs with in-repo charts, %d with chart renders", storedCharts.Load(), storedReleases.Load())
	if stored == 0 || storedCharts.Load() == 0 || storedReleases.Load() == 0 {
		t.Error("no scenario stored a graph, or none with in-repo charts or chart renders: the test checks nothing")
	}
}
