// Package kustomize holds what kustomize-controller decides about a Kustomization before and
// around its build: reading the object's spec under the kustomize.toolkit.fluxcd.io/v1
// schema (api/v1 KustomizationSpec), with dependsOn and sourceRef namespaces defaulted to
// the object's, into a graph.Kustomization; the refusal of plugins and Helm that its
// build options make (fluxcd/pkg/kustomize Build, DisabledPluginConfig); and postBuild
// substitution over a built object (Store, Substitution: substituteFrom resolved from the
// cluster's own ConfigMaps and Secrets through fluxcd/pkg/kustomize LoadVariables and
// SubstituteVariables, undefined and literal variables, Secret-derived values and
// fields). render runs the build and calls these.
package kustomize
