package fleet_test

import (
	"context"
	"os"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/tiergate/tiergate/internal/fleet"
	"github.com/tiergate/tiergate/internal/pipeline"
	"github.com/tiergate/tiergate/internal/render"
)

func BenchmarkZZProfWarm(b *testing.B) {
	f := fleetFor(b, "300", benchSizes[1].spec)
	for i := 0; i < 5; i++ {
		cache := render.NewCache(0)
		if _, err := pipeline.Commits(context.Background(), f.repo, f.base, f.base, pipeline.Options{Cache: cache}); err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			out, _ := os.Create(os.Getenv("PROF"))
			pprof.StartCPUProfile(out)
			defer pprof.StopCPUProfile()
		}
		t := time.Now()
		res, err := pipeline.Commits(context.Background(), f.repo, f.base, f.heads[fleet.Shape(os.Getenv("SHAPE"))], pipeline.Options{Cache: cache})
		if err != nil {
			b.Fatal(err)
		}
		b.Log(time.Since(t), res.Report.Timings)
		if i == 0 {
			pprof.StopCPUProfile()
		}
	}
}
