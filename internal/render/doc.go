// Package render builds the Flux Kustomization graph of one commit, as kustomize-controller
// would: it discovers each cluster's root Kustomization, builds every Kustomization with
// fluxcd/pkg/kustomize (generator, SecureBuild-equivalent filesystem, postBuild
// substitution), follows nested Kustomizations to a fixpoint and records, for every object,
// its owner and the file and line it came from. A build error is data, never a crash: the
// Kustomization keeps its error and the rest of the graph is still rendered.
//
// render knows nothing of git, forges or rules; it reads a directory that holds the source
// artifact (a checkout with source-side ignore rules applied).
package render
