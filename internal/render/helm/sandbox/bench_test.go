package sandbox

import (
	"context"
	"testing"

	"github.com/tiergate/tiergate/internal/render/helm"
)

// BenchmarkRender compares one small chart rendered in-process with the same render
// through a warm pool (the difference is the sandbox's cost per release) and through a
// new worker each time (the cost a pool saves).
func BenchmarkRender(b *testing.B) {
	req := appRequest(b, "helm-app") // helm.Render in the worker too
	b.Run("in-process", func(b *testing.B) {
		for b.Loop() {
			if _, err := helm.Render(context.Background(), req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pool", func(b *testing.B) {
		p := NewPool(Options{Size: 1, Command: workerCommand(b)})
		defer p.Close()
		if _, err := p.Render(context.Background(), req); err != nil { // start the worker
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := p.Render(context.Background(), req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pool-cold", func(b *testing.B) { // a process start per render
		for b.Loop() {
			p := NewPool(Options{Size: 1, Command: workerCommand(b)})
			if _, err := p.Render(context.Background(), req); err != nil {
				b.Fatal(err)
			}
			p.Close()
		}
	})
}
