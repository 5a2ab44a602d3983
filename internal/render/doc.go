// Package render builds the Flux Kustomization graph of one commit, as kustomize-controller
// would: it discovers each cluster's root Kustomization, builds every Kustomization with
// fluxcd/pkg/kustomize (generator, SecureBuild-equivalent filesystem, postBuild
// substitution), follows nested Kustomizations to a fixpoint and records, for every object,
// its owner and the file and line it came from. A build error is data, never a crash: the
// Kustomization keeps its error and the rest of the graph is still rendered.
//
// render knows nothing of git, forges or rules; it reads an fsys.Source, the artifact in memory
// (a folder's or a git tree's files, which pipeline reads), and applies source-controller's
// ignore rules to it. Only fluxcd/pkg/kustomize's generator touches the disk, in a scratch
// folder holding exactly what it reads. The graph it returns is of render/graph's types;
// render is the orchestrator, and the behaviour packages it calls (index, discover, fsys,
// kustomize, artifact, helmrelease, helm, resourceset, values) never import it.
package render
