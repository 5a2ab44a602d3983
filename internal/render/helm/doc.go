// Package helm renders a HelmRelease's chart as helm-controller installs it, in process and
// offline: the release identity (ReleaseOf), the values (Values, fluxcd/pkg/chartutil as the
// controller calls it) and the manifest (Render, Helm v4's action.Install with the
// client-only dry run and helm-controller's post-renderers).
//
// It touches no network, no disk and no cluster: the chart arrives loaded, valuesFrom
// sources are read through a client.Reader the caller builds from the rendered graph, and
// the engine gets no REST config. Template functions whose output depends on time, chance or
// the cluster are replaced by deterministic ones, and their use is reported in
// Result.Approximate. Render does not bound CPU or memory (Helm's engine ignores its
// context): callers run it in a child process (package sandbox).
package helm
