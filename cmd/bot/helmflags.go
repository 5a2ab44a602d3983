package main

import (
	"github.com/spf13/pflag"

	"github.com/tiergate/tiergate/internal/render/helm/sandbox"
)

// helmPoolFlags registers the bounds of the chart sandbox (sandbox.Options): the worker
// processes run beside the bot, so their memory counts in its container's limit.
type helmPoolFlags struct {
	workers   int
	memoryMiB int64
}

func (h *helmPoolFlags) register(fl *pflag.FlagSet) {
	d := sandbox.DefaultOptions
	fl.IntVar(&h.workers, "helm-workers", d.Size, "chart render worker processes (each may hold --helm-memory-mib)")
	fl.Int64Var(&h.memoryMiB, "helm-memory-mib", d.MemoryBytes>>20, "memory one chart render worker may hold, in MiB (its GOMEMLIMIT; killed past it)")
}

// options returns the sandbox options the flags give; errors name the flag.
func (h *helmPoolFlags) options() (sandbox.Options, error) {
	if h.workers < 1 {
		return sandbox.Options{}, usageErr("--helm-workers: want at least 1, got %d", h.workers)
	}
	if h.memoryMiB < 64 {
		return sandbox.Options{}, usageErr("--helm-memory-mib: want at least 64, got %d", h.memoryMiB)
	}
	return sandbox.Options{Size: h.workers, MemoryBytes: h.memoryMiB << 20}, nil
}
