package fleet_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tiergate/tiergate/internal/fleet"
	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/render"
)

// benchSizes are the fleets of issue 4: one cluster with 50, 300 and 2,000 tiers, and
// three clusters sharing 50 tiers' bases. Each is generated only when a benchmark selects
// it (-bench filters sub-benchmarks before they run), once per test binary.
var benchSizes = []struct {
	name string
	spec fleet.Spec
}{
	{"50", fleet.Spec{Clusters: 1, Kustomizations: 50, Objects: 6, Seed: 1}},
	{"300", fleet.Spec{Clusters: 1, Kustomizations: 300, Objects: 6, Seed: 1}},
	{"2000", fleet.Spec{Clusters: 1, Kustomizations: 2000, Objects: 6, Seed: 1}},
	{"50x3", fleet.Spec{Clusters: 3, Kustomizations: 50, Objects: 6, Seed: 1}},
}

// cacheEnv names a directory that keeps generated fleets across test binaries (docs/bench.sh
// sets it so that the measured processes do not generate); unset, fleets live in a
// temporary directory removed when the binary exits.
const cacheEnv = "TIERGATE_FLEET_DIR"

var (
	cacheMu  sync.Mutex
	cacheDir string
	fleets   = map[string]*benchFleet{}
)

type benchFleet struct {
	repo  *gitrepo.Repo
	base  plumbing.Hash
	heads map[fleet.Shape]plumbing.Hash
}

// scratchDirs holds other folders the benchmarks made (corpus clones), removed at exit.
var scratchDirs sync.Map

func TestMain(m *testing.M) {
	code := m.Run()
	if cacheDir != "" && os.Getenv(cacheEnv) == "" {
		os.RemoveAll(cacheDir)
	}
	scratchDirs.Range(func(dir, _ any) bool {
		os.RemoveAll(dir.(string))
		return true
	})
	os.Exit(code)
}

// fleetFor returns the fleet of that name, generating it (outside the timer) on first use.
func fleetFor(b testing.TB, name string, spec fleet.Spec) *benchFleet {
	b.Helper()
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if f := fleets[name]; f != nil {
		return f
	}
	if cacheDir == "" {
		cacheDir = os.Getenv(cacheEnv)
		if cacheDir == "" {
			d, err := os.MkdirTemp("", "tiergate-fleets-")
			if err != nil {
				b.Fatal(err)
			}
			cacheDir = d
		}
	}
	dir := filepath.Join(cacheDir, name)
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		// Written aside and renamed, so an interrupted run leaves no half fleet behind.
		tmp := dir + ".tmp"
		os.RemoveAll(tmp)
		if _, err := spec.Write(tmp); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(tmp, dir); err != nil {
			b.Fatal(err)
		}
	}
	g, err := gitrepo.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	f := &benchFleet{repo: g, heads: map[fleet.Shape]plumbing.Hash{}}
	if f.base, err = g.Resolve("main"); err != nil {
		b.Fatal(err)
	}
	shapes := fleet.Shapes
	if spec.HelmReleases > 0 {
		shapes = append(append([]fleet.Shape{}, shapes...), fleet.ChartBump)
	}
	for _, sh := range shapes {
		if f.heads[sh], err = g.Resolve(string(sh)); err != nil {
			b.Fatal(err)
		}
	}
	fleets[name] = f
	return f
}

// eachCase runs review for every fleet size and PR shape as <size>/<shape>.
func eachCase(b *testing.B, review func(f *benchFleet, head plumbing.Hash) error) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			for _, sh := range fleet.Shapes {
				b.Run(string(sh), func(b *testing.B) {
					f := fleetFor(b, size.name, size.spec)
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						if err := review(f, f.heads[sh]); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkNaive is the baseline: every Kustomization built at both commits with plain
// kustomize, no reuse (fleet.Naive).
func BenchmarkNaive(b *testing.B) {
	eachCase(b, func(f *benchFleet, head plumbing.Hash) error {
		_, err := fleet.Naive(context.Background(), f.repo, f.base, head)
		return err
	})
}

// BenchmarkTiergate runs what `bot review` runs: both commits read, rendered and reviewed
// (pipeline.Commits) with a cache of its own.
func BenchmarkTiergate(b *testing.B) {
	eachCase(b, func(f *benchFleet, head plumbing.Hash) error {
		res, err := pipeline.Commits(context.Background(), f.repo, f.base, head, pipeline.Options{})
		if err == nil && len(res.Report.Clusters) == 0 {
			err = fmt.Errorf("no cluster reviewed")
		}
		return err
	})
}

// BenchmarkTiergateWarm runs a review the way the server runs it once it has reviewed the
// base: with a cache holding the base's builds, objects and graph (filled outside the timer).
func BenchmarkTiergateWarm(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			for _, sh := range fleet.Shapes {
				b.Run(string(sh), func(b *testing.B) {
					f := fleetFor(b, size.name, size.spec)
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						b.StopTimer()
						cache := render.NewCache(0)
						if _, err := pipeline.Commits(context.Background(), f.repo, f.base, f.base, pipeline.Options{Cache: cache}); err != nil {
							b.Fatal(err)
						}
						b.StartTimer()
						if _, err := pipeline.Commits(context.Background(), f.repo, f.base, f.heads[sh], pipeline.Options{Cache: cache}); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// BenchmarkWrite measures generating a fleet; with TIERGATE_FLEET_DIR set it also leaves
// the fleet there for later benchmark processes.
func BenchmarkWrite(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := size.spec.Write(b.TempDir()); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if os.Getenv(cacheEnv) != "" {
				fleetFor(b, size.name, size.spec)
			}
		})
	}
}
