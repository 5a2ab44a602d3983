// Package fetch resolves and pulls remote Helm charts the way source-controller does: OCI
// charts (an OCIRepository, or a HelmRepository of type oci) through oras-go, and charts of an
// HTTP Helm repository through its index.yaml. It reaches only the hosts a Policy allows, over
// https, anonymously, never a private, loopback or metadata address, with size limits and a
// deadline per fetch.
//
// One Fetcher serves one review: a reference is resolved once and shared by base and head
// (tags move, so a new review resolves again); chart archives and manifests are stored by
// digest, on disk when Policy.CacheDir is set, and a reference pinned by digest whose content
// is cached renders without the network.
package fetch
