// Package resourceset executes flux-operator's ResourceSet templates: the << >> text/template
// with flux-operator's function map, bounded in time and output, and the split of the result
// into objects (flux-operator internal/builder). It knows nothing of Kustomizations or the
// graph; render.expandResourceSets decides which ResourceSets to build and with which inputs.
package resourceset
