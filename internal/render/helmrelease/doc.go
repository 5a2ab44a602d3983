// Package helmrelease holds the parts of a HelmRelease's values that come from the cluster:
// its valuesFrom sources (fluxcd/pkg/chartutil ChartValuesFromReferences, which helm-controller calls)
// and the placeholders a chart sees instead of Secret values, so that no Secret value reaches
// a rendered object or a report. render reads the release's chart and runs the helm engine.
package helmrelease
