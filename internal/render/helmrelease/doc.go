// Package helmrelease resolves and reads what a HelmRelease installs: the chart it names,
// found as helm-controller's getSource and source-controller's reconcilers find it, and
// loaded from the repository's files (ResolveChart, LoadRepoChart); its valuesFrom sources
// (fluxcd/pkg/chartutil ChartValuesFromReferences, which helm-controller calls); and the
// placeholders a chart sees instead of Secret values, so that no Secret value reaches a
// rendered object or a report. render runs the helm engine over the result and records
// the release in the graph.
package helmrelease
