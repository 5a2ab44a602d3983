package main

import (
	"github.com/spf13/pflag"

	"github.com/tiergate/tiergate/internal/config"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// checkAllowRemote validates --allow-remote as .tiergate.yaml's remote.allow is validated;
// the error is a usage error (exit 2).
func checkAllowRemote(hosts []string) error {
	for _, h := range hosts {
		if err := config.CheckHost(h); err != nil {
			return usageErr("--allow-remote: %v", err)
		}
	}
	return nil
}

// limitFlags registers the limits on what one review may read and render (graph.Limits,
// docs/reliability.md), with graph.DefaultLimits as defaults. The operator sets them, not
// the repository: its .tiergate.yaml comes from the pull request under review.
func limitFlags(fl *pflag.FlagSet, l *graph.Limits) {
	d := graph.DefaultLimits
	fl.Int64Var(&l.MaxFileBytes, "max-file-bytes", d.MaxFileBytes, "largest file a build may read, in bytes")
	fl.Int64Var(&l.MaxTotalBytes, "max-tree-bytes", d.MaxTotalBytes, "largest tree a review renders, all files together, in bytes")
	fl.IntVar(&l.MaxFiles, "max-files", d.MaxFiles, "most files and folders in a reviewed tree")
	fl.IntVar(&l.MaxDepth, "max-depth", d.MaxDepth, "deepest folder nesting in a reviewed tree")
	fl.Int64Var(&l.MaxBuildBytes, "max-build-bytes", d.MaxBuildBytes, "most bytes one kustomize build or chart reads, a file counted once per read")
	fl.IntVar(&l.MaxBuildFiles, "max-build-files", d.MaxBuildFiles, "most files one kustomize build reads, a file counted once per read")
	fl.IntVar(&l.MaxBuildDocuments, "max-build-documents", d.MaxBuildDocuments, "most YAML documents one kustomize build reads or one chart renders")
	fl.IntVar(&l.MaxObjects, "max-objects", d.MaxObjects, "most objects one cluster renders")
	fl.IntVar(&l.MaxKustomizations, "max-kustomizations", d.MaxKustomizations, "most Flux Kustomizations one cluster renders")
	fl.Int64Var(&l.MaxSubstitutedBytes, "max-substituted-bytes", d.MaxSubstitutedBytes, "most bytes postBuild substitution writes in one cluster")
	fl.DurationVar(&l.Timeout, "render-timeout", d.Timeout, "longest render of one commit")
}
