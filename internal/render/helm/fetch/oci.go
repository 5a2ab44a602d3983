package fetch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
)

// Helm's OCI media types (helm.sh/helm/v4/pkg/registry constants.go).
const (
	chartLayerMediaType       = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
	chartConfigMediaType      = "application/vnd.cncf.helm.config.v1+json"
	legacyChartLayerMediaType = "application/tar+gzip"
)

// maxTagPages bounds the tag list a registry can make us page through.
const maxTagPages = 50

// fetchOCI pulls the chart at u (oci://host/path/chart): the manifest ref.Digest pins, else
// the tag ref.Tag names or ref.Version names or selects, then its one chart layer. Both are verified
// against their digests; content already stored by digest is not fetched again.
func (f *Fetcher) fetchOCI(ctx context.Context, ref Ref, u *url.URL) (*Chart, error) {
	repo, err := remote.NewRepository(u.Host + u.Path)
	if err != nil {
		return nil, err
	}
	repo.PlainHTTP = f.policy.Loopback
	repo.Client = &auth.Client{
		Client:     f.http.client,
		Header:     map[string][]string{"User-Agent": {userAgent}},
		Credential: auth.StaticCredential(u.Host, auth.EmptyCredential),
		Cache:      f.tokens,
	}
	repo.MaxMetadataBytes = f.limits.manifest
	repo.TagListMaxPages = maxTagPages

	var mdgst digest.Digest
	var tag string
	if ref.Digest != "" {
		if mdgst, err = parseDigest(ref.Digest); err != nil {
			return nil, err
		}
	} else if ref.Version == "" && ref.Tag != "" {
		tag = ref.Tag
	} else if ref.OCIRepository {
		if tag, err = f.semverTag(ctx, repo, ref); err != nil {
			return nil, err
		}
	} else if tag, err = f.resolveTag(ctx, repo, ref.Version); err != nil {
		return nil, err
	}
	manifest, mdgst, err := f.manifest(ctx, repo, mdgst, tag)
	if err != nil {
		return nil, err
	}
	layer, err := chartLayer(manifest)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", mdgst, err)
	}
	if layer.Size > f.limits.blob {
		return nil, fmt.Errorf("chart layer %s is %d bytes, over the limit of %d", layer.Digest, layer.Size, f.limits.blob)
	}
	data, ok := f.blobs.get(layer.Digest, f.limits.blob)
	if !ok {
		rc, err := repo.Fetch(ctx, layer)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		if data, err = content.ReadAll(rc, layer); err != nil {
			return nil, fmt.Errorf("chart layer %s: %w", layer.Digest, err)
		}
		if err := f.blobs.put(layer.Digest, data); err != nil {
			return nil, err
		}
	}
	return &Chart{Archive: data, Digest: mdgst.String(), Version: chartVersionOf(tag, manifest), Tag: tag}, nil
}

// chartVersionOf is a semver tag in semver form, else the version Helm annotates the
// manifest with (a digest or a plain tag such as "latest" names no version). "_" is read
// as "+" for every source: helm-controller compares an OCIRepository's tag with the
// chart's version that way (parseSemverFromTag, internal/controller/helmrelease_controller.go).
func chartVersionOf(tag string, m *ocispec.Manifest) string {
	if _, err := parseVersion(semverTag(tag)); err == nil {
		return semverTag(tag)
	}
	return m.Annotations[ocispec.AnnotationVersion]
}

// resolveTag returns the tag ver names, as source-controller resolves a HelmChart of an
// OCI HelmRepository (OCIChartRepository.getChartVersion, internal/helm/repository/
// oci_chart_repository.go): an exact version is its tag without listing tags, so is a
// name that is not a semver constraint ("latest"); anything else is chosen from the tag
// list (pickTag). An OCIRepository's ref.semver goes through semverTag instead.
func (f *Fetcher) resolveTag(ctx context.Context, repo *remote.Repository, ver string) (string, error) {
	if _, err := parseVersion(ver); err == nil {
		return ociTag(ver), nil
	}
	if _, err := constraint(ver); err != nil {
		return ver, nil
	}
	tags, err := listTags(ctx, repo)
	if err != nil {
		return "", err
	}
	return pickTag(tags, ver)
}

// listTags reads every tag of repo (at most maxTagPages pages).
func listTags(ctx context.Context, repo *remote.Repository) ([]string, error) {
	var tags []string
	err := repo.Tags(ctx, "", func(page []string) error {
		tags = append(tags, page...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list tags: %w", err)
	}
	return tags, nil
}

// manifest returns the chart's image manifest: the one stored as want when want is set and
// stored, else the one the registry serves for want or tag, verified against its digest.
func (f *Fetcher) manifest(ctx context.Context, repo *remote.Repository, want digest.Digest, tag string) (*ocispec.Manifest, digest.Digest, error) {
	data, ok := []byte(nil), false
	if want != "" {
		data, ok = f.blobs.get(want, f.limits.manifest)
	}
	if !ok {
		reference := tag
		if want != "" {
			reference = want.String()
		}
		desc, rc, err := repo.FetchReference(ctx, reference)
		if err != nil {
			return nil, "", err
		}
		defer rc.Close()
		if desc.Digest.Algorithm() != digest.SHA256 {
			return nil, "", fmt.Errorf("registry served manifest %s, not a sha256 digest", desc.Digest)
		}
		if want != "" && desc.Digest != want {
			return nil, "", fmt.Errorf("registry served manifest %s for %s", desc.Digest, want)
		}
		if desc.Size > f.limits.manifest {
			return nil, "", fmt.Errorf("manifest %s is %d bytes, over the limit of %d", desc.Digest, desc.Size, f.limits.manifest)
		}
		if desc.MediaType != ocispec.MediaTypeImageManifest {
			return nil, "", fmt.Errorf("%s is a %s, not an OCI image manifest", reference, desc.MediaType)
		}
		if data, err = content.ReadAll(rc, desc); err != nil {
			return nil, "", fmt.Errorf("manifest %s: %w", desc.Digest, err)
		}
		want = desc.Digest
		if err := f.blobs.put(want, data); err != nil {
			return nil, "", err
		}
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, "", fmt.Errorf("manifest %s: %w", want, err)
	}
	return &m, want, nil
}

// chartLayer is the manifest's chart layer, as Helm's registry Client.Pull reads it: of
// Helm's chart media type, else of the legacy application/tar+gzip that Pull still accepts.
func chartLayer(m *ocispec.Manifest) (ocispec.Descriptor, error) {
	var types []string
	for _, mt := range []string{chartLayerMediaType, legacyChartLayerMediaType} {
		for _, l := range m.Layers {
			if l.MediaType != mt {
				continue
			}
			if l.Digest.Validate() != nil || l.Digest.Algorithm() != digest.SHA256 {
				return ocispec.Descriptor{}, fmt.Errorf("chart layer digest %q is not sha256:<hex>", l.Digest)
			}
			return l, nil
		}
	}
	for _, l := range m.Layers {
		types = append(types, l.MediaType)
	}
	return ocispec.Descriptor{}, fmt.Errorf("has no layer of type %s (layers: %s)", chartLayerMediaType, strings.Join(types, ", "))
}

// parseDigest accepts "sha256:<64 hex>", the digests Flux and Helm write.
func parseDigest(s string) (digest.Digest, error) {
	d, err := digest.Parse(s)
	if err != nil || d.Algorithm() != digest.SHA256 {
		return "", fmt.Errorf("digest %q is not sha256:<64 hex digits>", s)
	}
	return d, nil
}
