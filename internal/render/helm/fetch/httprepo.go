package fetch

import (
	"context"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	"sigs.k8s.io/yaml"
)

// index is the part of a Helm repository's index.yaml that choosing and pulling a chart
// reads (helm.sh/helm/v4/pkg/repo/v1 IndexFile).
type index struct {
	APIVersion string                     `json:"apiVersion"`
	Entries    map[string][]*chartVersion `json:"entries"`
}

type chartVersion struct {
	Version string    `json:"version"`
	URLs    []string  `json:"urls"`
	Digest  string    `json:"digest"` // hex sha256 of the .tgz, as helm repo index writes it
	Created time.Time `json:"created"`
}

// fetchHTTP pulls chart ref.Chart from the Helm repository at ref.URL: the index once per
// Fetcher, the version pickVersion chooses, its first URL resolved against the repository
// URL as source-controller's ChartRepository.DownloadChart does. An index digest is
// checked (source-controller does not); an archive stored under it is not fetched again.
func (f *Fetcher) fetchHTTP(ctx context.Context, ref Ref) (*Chart, error) {
	// The index flight runs under its own deadline; waiting for it without ctx's makes its
	// error, not a race between the two deadlines, the one reported.
	idx, err := f.indexes.do(context.WithoutCancel(ctx), ref.URL, f.policy.Timeout, func(ctx context.Context) (*index, error) {
		return f.index(ctx, ref.URL)
	})
	if err != nil {
		return nil, err
	}
	cv, err := pickVersion(idx, ref.Chart, ref.Version)
	if err != nil {
		return nil, err
	}
	if len(cv.URLs) == 0 {
		return nil, fmt.Errorf("index.yaml lists no URL for chart %q version %s", ref.Chart, cv.Version)
	}
	chartURL, err := resolveReference(ref.URL, cv.URLs[0])
	if err != nil {
		return nil, err
	}
	if err := f.http.checkRequest(chartURL); err != nil {
		return nil, fmt.Errorf("chart %q version %s at %s: %w", ref.Chart, cv.Version, chartURL.Redacted(), err)
	}
	var want digest.Digest
	if cv.Digest != "" {
		if want, err = indexDigest(cv.Digest); err != nil {
			return nil, fmt.Errorf("chart %q version %s: %w", ref.Chart, cv.Version, err)
		}
		if data, ok := f.blobs.get(want, f.limits.blob); ok {
			return &Chart{Archive: data, Digest: want.String(), Version: cv.Version}, nil
		}
	}
	data, err := f.http.get(ctx, chartURL.String(), f.limits.blob, "chart "+chartURL.Redacted())
	if err != nil {
		return nil, err
	}
	got := digest.FromBytes(data)
	if want != "" && got != want {
		return nil, fmt.Errorf("chart %s is %s, index.yaml says %s", chartURL.Redacted(), got, want)
	}
	if err := f.blobs.put(got, data); err != nil {
		return nil, err
	}
	return &Chart{Archive: data, Digest: got.String(), Version: cv.Version}, nil
}

// index downloads and parses repoURL's index.yaml, JSON or YAML as Helm reads it.
func (f *Fetcher) index(ctx context.Context, repoURL string) (*index, error) {
	u, err := resolveReference(repoURL, "index.yaml")
	if err != nil {
		return nil, err
	}
	data, err := f.http.get(ctx, u.String(), f.limits.index, "index.yaml")
	if err != nil {
		return nil, err
	}
	var idx index
	if err := yaml.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	if idx.APIVersion == "" {
		return nil, fmt.Errorf("%s: no apiVersion, not a Helm repository index", u.Redacted())
	}
	return &idx, nil
}

// resolveReference resolves ref against the repository URL as Helm's
// repo.ResolveReferenceURL does: the base path gets a trailing slash, so a relative chart URL
// lands inside the repository, and the base's query is kept.
func resolveReference(base, ref string) (*url.URL, error) {
	r, err := url.Parse(ref)
	if err != nil {
		return nil, fmt.Errorf("chart URL %q: %w", ref, err)
	}
	b, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	if r.IsAbs() {
		return r, nil
	}
	b.Path = strings.TrimSuffix(b.Path, "/") + "/"
	if b.RawPath != "" {
		b.RawPath = strings.TrimSuffix(b.RawPath, "/") + "/"
	}
	out := b.ResolveReference(r)
	out.RawQuery = b.RawQuery
	return out, nil
}

// indexDigest reads index.yaml's digest: 64 hex digits, or with a "sha256:" prefix.
func indexDigest(s string) (digest.Digest, error) {
	hexs := strings.TrimPrefix(s, "sha256:")
	if b, err := hex.DecodeString(hexs); err != nil || len(b) != 32 {
		return "", fmt.Errorf("index.yaml digest %q is not a sha256", s)
	}
	return digest.NewDigestFromEncoded(digest.SHA256, strings.ToLower(hexs)), nil
}
