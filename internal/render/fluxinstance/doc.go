// Package fluxinstance reads flux-operator's FluxInstance as flux-operator would see it:
// a FluxInstance object, or the one the flux-instance Helm chart
// (controlplaneio-fluxcd/charts, charts/flux-instance) renders from a HelmRelease's values,
// resolved as helm-controller resolves them (HelmValues). Discovery reads the sync of
// either as the cluster's root; the review rules read its components and Flux version.
package fluxinstance
