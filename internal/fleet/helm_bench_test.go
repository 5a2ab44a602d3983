package fleet_test

import (
	"context"
	"testing"

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
