package fleet_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/tiergate/tiergate/internal/cachestore"
	"github.com/tiergate/tiergate/internal/fleet"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/render"
)

// helmFleet is the HelmRelease fleet of issue 12: one cluster, 100 app tiers, each with a
// HelmRelease of the in-repo chart charts/app.
var helmFleet = fleet.Spec{Clusters: 1, Kustomizations: 101, Objects: 4, HelmReleases: 100, Seed: 1}

// BenchmarkHelmReleases reviews the HelmRelease fleet's one-file and chart-bump heads cold
// (a cache of the review's own, as `bot review`) and warm (the base reviewed before, as the
// server). ns/release is the time per op divided by the 100 HelmReleases of one commit.
func BenchmarkHelmReleases(b *testing.B) {
	for _, warm := range []bool{false, true} {
		name := "cold"
		if warm {
			name = "warm"
		}
		b.Run(name, func(b *testing.B) {
			for _, sh := range []fleet.Shape{fleet.OneFile, fleet.ChartBump} {
				b.Run(string(sh), func(b *testing.B) {
					f := fleetFor(b, "hr100", helmFleet)
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						b.StopTimer()
						opts := pipeline.Options{}
						if warm {
							opts.Cache = render.NewCache(0)
							if _, err := pipeline.Commits(context.Background(), f.repo, f.base, f.base, opts); err != nil {
								b.Fatal(err)
							}
						}
						b.StartTimer()
						if _, err := pipeline.Commits(context.Background(), f.repo, f.base, f.heads[sh], opts); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(helmFleet.HelmReleases), "ns/release")
				})
			}
		})
	}
}

// BenchmarkPersistentCache reviews the one-file head of the HelmRelease fleet, and of the
// same fleet without HelmReleases, as a second `bot review` process on a cache folder that
// an earlier process filled by reviewing the base (cache from the previous commit): a new
// render.Cache on the folder (internal/cachestore), closed inside the timer as the CLI
// closes it. The target: the fleet with releases within 2× of the one without.
// cpu-ms/op is the process's CPU time (user and system, background writes included) per
// timed review: on a busy machine it compares better than ns/op.
func BenchmarkPersistentCache(b *testing.B) {
	noHR := helmFleet
	noHR.HelmReleases = 0
	for _, fc := range []struct {
		name string
		spec fleet.Spec
	}{{"hr100", helmFleet}, {"hr0", noHR}} {
		b.Run(fc.name, func(b *testing.B) {
			f := fleetFor(b, fc.name, fc.spec)
			review := func(dir string, head plumbing.Hash) {
				st, err := cachestore.Open(dir, "bench", 0)
				if err != nil {
					b.Fatal(err)
				}
				c := render.NewCache(0)
				c.Persist(st)
				if _, err := pipeline.Commits(context.Background(), f.repo, f.base, head, pipeline.Options{Cache: c}); err != nil {
					b.Fatal(err)
				}
				if err := st.Close(); err != nil {
					b.Fatal(err)
				}
			}
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				dir := b.TempDir()
				review(dir, f.base)
				b.StartTimer()
				c0 := processCPU()
				review(dir, f.heads[fleet.OneFile])
				cpu += processCPU() - c0
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
