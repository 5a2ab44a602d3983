// Package rules holds tiergate's rules, one per file, each a function from rendered Flux
// graphs to findings. State rules judge one cluster graph (they run on base and head, so a
// finding can be new, existing or resolved); change rules judge the transition from base to
// head (a move, a removal) and are always new. Every rule cites the Flux behaviour it follows
// (shared/flux-semantics.md, kustomize-controller, fluxcd/pkg).
package rules
