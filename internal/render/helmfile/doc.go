// Package helmfile reads the bootstrap helmfiles of a repository — the charts a cluster
// gets before Flux runs (`helmfile apply`, or `helmfile template … | kubectl apply` of their
// CRDs) — without executing anything: template actions are never run, and a value they
// would compute is unknown. It knows nothing of Flux; the pipeline turns the charts it
// finds into preinstalled CRD groups through the chart catalog.
package helmfile
