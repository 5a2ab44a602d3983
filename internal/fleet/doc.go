// Package fleet generates synthetic Flux fleets as git histories, for benchmarks and tests:
// C clusters bootstrapped the way `flux bootstrap` lays them out, K Flux Kustomizations per
// cluster in dependsOn layers, O objects each, apps shared between clusters through
// kustomize overlays, some directories without kustomization.yaml (the Flux generator
// path) and postBuild substitution (substitute, and substituteFrom a ConfigMap that an
// earlier tier renders). Besides the base commit, Write commits one head per PR Shape.
//
// The issue asks for the generator "in testdata"; it is a package under internal/ instead,
// because go tooling ignores testdata directories (./... would neither vet nor test it) and
// benchmarks in several packages import it.
//
// Naive is the baseline the benchmarks compare tiergate with: every Kustomization built at
// both commits with plain kustomize (krusty), no reuse.
//
// Output is deterministic: the same Spec gives the same files, commits and hashes.
package fleet
