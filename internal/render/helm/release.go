package helm

import (
	"crypto/sha256"
	"encoding/hex"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Release is helm-controller's identity of the Helm release a HelmRelease manages: the
// release Name (at most 53 characters), the Namespace its objects are installed in, and
// the StorageNamespace holding Helm's release records.
type Release struct{ Name, Namespace, StorageNamespace string }

// ReleaseOf is the release hr manages. Name is spec.releaseName, else
// [spec.targetNamespace-]metadata.name (api/v2/helmrelease_types.go GetReleaseName),
// shortened by ShortenName as internal/action/install.go newInstall does; Namespace is
// spec.targetNamespace, else hr's (GetReleaseNamespace); StorageNamespace is
// spec.storageNamespace, else hr's (GetStorageNamespace).
func ReleaseOf(hr *unstructured.Unstructured) Release {
	spec := func(field string) string {
		s, _, _ := unstructured.NestedString(hr.Object, "spec", field)
		return s
	}
	name, target, storage := spec("releaseName"), spec("targetNamespace"), spec("storageNamespace")
	if name == "" {
		name = hr.GetName()
		if target != "" {
			name = target + "-" + name
		}
	}
	if target == "" {
		target = hr.GetNamespace()
	}
	if storage == "" {
		storage = hr.GetNamespace()
	}
	return Release{Name: ShortenName(name), Namespace: target, StorageNamespace: storage}
}

// ShortenName is helm-controller's internal/release/name.go ShortenName: a name longer
// than 53 characters (Helm's limit) becomes its first 40 characters, "-" and the first 12
// hex digits of its SHA-256.
func ShortenName(name string) string {
	const maxLength, hashLength = 53, 12
	if len(name) <= maxLength {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	return name[:maxLength-hashLength-1] + "-" + hex.EncodeToString(sum[:])[:hashLength]
}
