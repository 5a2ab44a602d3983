// Package kustomize holds what kustomize-controller decides about a Kustomization before and
// around its build: reading the object's spec under the kustomize.toolkit.fluxcd.io/v1
// schema (api/v1 KustomizationSpec), with dependsOn and sourceRef namespaces defaulted to
// the object's, into a graph.Kustomization; and the refusal of plugins and Helm that its
// build options make (fluxcd/pkg/kustomize Build, DisabledPluginConfig). render runs the
// build; this package only decides what the object asks for and what it may not.
package kustomize
