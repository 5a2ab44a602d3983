// Package discover finds the cluster roots of a tree as Flux would create them
// (DESIGN.md "Rendering" 1): the clusters of .tiergate.yaml, else flux bootstrap's root
// Kustomizations (a Kustomization whose path holds its own file, its source beside it),
// and flux-operator's FluxInstances and flux-instance HelmReleases (their sync read from
// the chart's values, valuesFrom resolved as helm-controller merges them); only when none
// exists, one root per folder of Kustomizations nothing else covers. Building a folder is
// render's, passed in as a FolderBuild.
package discover
