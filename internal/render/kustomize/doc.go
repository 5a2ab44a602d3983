// Package kustomize reads a Flux Kustomization object as kustomize-controller does: its
// spec under the kustomize.toolkit.fluxcd.io/v1 schema (api/v1 KustomizationSpec), with
// dependsOn and sourceRef namespaces defaulted to the object's, into a graph.Kustomization.
// render builds it; this package only decides what the object asks for.
package kustomize
