package graph

import (
	"errors"
	"time"
)

// Limits bounds the work one Render does on an untrusted tree. A zero field takes its
// default. Tree limits (files, total bytes, depth) fail Render with ErrLimitExceeded, as
// nothing can be discovered safely; the others fail the Kustomization that hits them with
// a BuildError naming the limit, so the rest of the graph still renders.
type Limits struct {
	// MaxFileBytes caps one file kustomize may read; default 8 MiB. A larger file is refused
	// where it is listed.
	MaxFileBytes int64
	// MaxTotalBytes caps the regular files of the tree together; default 512 MiB.
	MaxTotalBytes int64
	// MaxFiles caps the files, directories and symlinks of the tree; default 200,000.
	MaxFiles int
	// MaxDepth caps directory nesting below the root (a/b/c.yaml has depth 3); default 64.
	MaxDepth int
	// MaxBuildBytes caps the bytes one kustomize build reads, counting a file once per
	// read: it bounds bases included many times over; default 128 MiB.
	MaxBuildBytes int64
	// MaxBuildFiles caps the files one kustomize build reads, counting a file once per
	// read: kustomize's work per base outweighs its bytes; default 10,000.
	MaxBuildFiles int
	// MaxBuildDocuments caps the YAML documents one kustomize build reads: kustomize's
	// time grows with the square of a build's objects (1,000 take 6 s, 4,000 two minutes
	// on a shared 2-core machine), and a build cannot be interrupted; default 5,000.
	MaxBuildDocuments int
	// MaxObjects caps the objects one cluster renders; default 100,000.
	MaxObjects int
	// MaxSubstitutedBytes caps what postBuild substitution writes in one cluster, all its
	// Kustomizations together (MaxBuildBytes bounds each one); default 256 MiB.
	MaxSubstitutedBytes int64
	// MaxKustomizations caps the Flux Kustomizations one cluster renders; default 5,000.
	MaxKustomizations int
	// Timeout caps the wall time of one Render; Kustomizations not built by then fail with
	// a BuildError. Default 5 minutes.
	Timeout time.Duration
}

// DefaultLimits are the limits a zero Limits field takes.
var DefaultLimits = Limits{
	MaxFileBytes: 8 << 20, MaxTotalBytes: 512 << 20, MaxFiles: 200000, MaxDepth: 64,
	MaxBuildBytes: 128 << 20, MaxBuildFiles: 10000, MaxBuildDocuments: 5000, MaxObjects: 100000, MaxSubstitutedBytes: 256 << 20, MaxKustomizations: 5000, Timeout: 5 * time.Minute,
}

// WithDefaults returns l with each zero field set from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits
	if l.MaxFileBytes > 0 {
		d.MaxFileBytes = l.MaxFileBytes
	}
	if l.MaxTotalBytes > 0 {
		d.MaxTotalBytes = l.MaxTotalBytes
	}
	if l.MaxFiles > 0 {
		d.MaxFiles = l.MaxFiles
	}
	if l.MaxDepth > 0 {
		d.MaxDepth = l.MaxDepth
	}
	if l.MaxBuildBytes > 0 {
		d.MaxBuildBytes = l.MaxBuildBytes
	}
	if l.MaxBuildFiles > 0 {
		d.MaxBuildFiles = l.MaxBuildFiles
	}
	if l.MaxBuildDocuments > 0 {
		d.MaxBuildDocuments = l.MaxBuildDocuments
	}
	if l.MaxObjects > 0 {
		d.MaxObjects = l.MaxObjects
	}
	if l.MaxSubstitutedBytes > 0 {
		d.MaxSubstitutedBytes = l.MaxSubstitutedBytes
	}
	if l.MaxKustomizations > 0 {
		d.MaxKustomizations = l.MaxKustomizations
	}
	if l.Timeout > 0 {
		d.Timeout = l.Timeout
	}
	return d
}

// ErrLimitExceeded is wrapped by the error ReadSource and SourceBuilder return when the
// tree exceeds a Limits bound (files, total bytes, depth); the message names the limit and
// the path.
var ErrLimitExceeded = errors.New("render limit exceeded")
