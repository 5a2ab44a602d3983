// Package graph holds the rendered Flux graph of one commit and its identity: Graph, Cluster,
// Kustomization, Object with its owners and source lines, the errors of a build, and the
// Snapshot (the source artifact in memory) every render reads. It is the package every
// behaviour package of render and every reader of a render (review, pipeline, cmd/bot)
// imports; it renders nothing itself, so it imports none of them. MatchClusters pairs the
// clusters of two commits by Cluster.ID.
package graph
