// Package index reads the manifest files of a graph.Snapshot on demand: each file's YAML
// documents with their kind, name, namespace and 1-based lines (Doc, as kustomize reads
// them after kyaml's DeAnchor: aliases and merge keys followed), and the source lines
// that findings and build errors point at (Locate, KeyLine, GeneratorLine, DataKey,
// LineOf). Parsing is shared across renders through the Parser render's Cache passes in.
// It knows nothing of Kustomizations or builds.
package index
