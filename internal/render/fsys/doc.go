// Package fsys is the filesystem view of a Flux source: reading a folder or a git tree into
// a graph.Snapshot within graph.Limits (Source, SourceBuilder), the read-only kustomize
// filesystem over a snapshot with the files a build writes on top (SrcFS), and the record
// of what a build read, fingerprinted so that a build is reused only when its inputs are
// unchanged (NewRecordFS, Fingerprints); the layers kustomize builds through above it
// (GuardFS: the secure filesystem's source-root bound, the Source's refusals and the build
// limits; RemoteFS: remote entries fetched under the policy or left out); and
// source-controller's ignore rules (Ignored, SpecIgnore).
package fsys
