package fetch

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/tiergate/tiergate/internal/config"

	"oras.land/oras-go/v2/registry/remote/auth"
)

// Policy says which charts a Fetcher may pull, and where it keeps them.
type Policy struct {
	// Allow lists the host names charts may come from, compared case-insensitively;
	// "*.example.com" allows every name below example.com, as config.Remote.Allows reads
	// it. A port is not part of the name. An empty list pulls nothing.
	Allow []string
	// CacheDir holds chart archives and OCI manifests by digest (CacheDir/sha256/<hex>);
	// "" keeps them in memory for the Fetcher's life.
	CacheDir string
	// Timeout caps one fetch (resolution, manifest and archive, redirects included);
	// 0 means 30 seconds.
	Timeout time.Duration
	// Loopback lets tests reach httptest and registry servers on 127.0.0.1 over plain
	// http; never set from config or flags.
	Loopback bool
}

// Ref is a remote chart as the HelmRelease's source names it.
type Ref struct {
	// Kind is "oci" (an OCIRepository, or a HelmRepository of type oci) or "http" (a
	// HelmRepository serving index.yaml).
	Kind string
	// URL is oci://host/path/chart or https://host/repo.
	URL string
	// Chart is the chart's name in index.yaml (http only).
	Chart string
	// Version is an exact version, a semver range (constraint), or "" for the latest
	// stable version: a HelmChart's spec.version, or an OCIRepository's ref.semver.
	Version string
	// Tag (OCI only) is an OCIRepository's ref.tag ("latest" when it sets no reference),
	// pulled as it is, never read as a range (OCIRepositoryReconciler.getArtifactRef,
	// source-controller internal/controller/ocirepository_controller.go). Version wins.
	Tag string
	// SemverFilter (OCI only) is an OCIRepository's ref.semverFilter: a Go regular
	// expression a tag must match before Version selects among the tags; with it the tag
	// list is always read, an exact Version included (OCIRepositoryReconciler.getTagBySemver
	// and filterTags, source-controller internal/controller/ocirepository_controller.go).
	// Only read with Version set.
	SemverFilter string
	// OCIRepository says that an OCIRepository names the chart, not a HelmRepository of
	// type oci: its ref.semver is resolved as source-controller's getTagBySemver does
	// (the tag list is always read, an exact version is a constraint like any other),
	// and its tags read "_" as "+" only when LayerMediaType is Helm's chart layer type
	// (convertOCIToSemVerTag, internal/controller/ocirepository_controller.go). A
	// HelmRepository's OCI chart always does, as Helm's registry client does (Client.Tags,
	// pkg/registry/client.go; parseReference, pkg/registry/reference.go).
	OCIRepository bool
	// LayerMediaType (OCIRepository only) is spec.layerSelector.mediaType.
	LayerMediaType string
	// Digest (OCI only) pins the manifest, "sha256:<hex>"; it wins over Version, as in
	// OCIRepository's getArtifactRef.
	Digest string
}

// String prints the reference as errors name it: oci://host/path/chart:tag-or-version,
// oci://host/path/chart@digest, https://host/repo chart:version, and a semver range as a
// range, not like a tag: oci://host/path/chart (semver ~1.2), https://host/repo chart
// (semver 1.x); a semverFilter joins the semver: oci://host/path/chart (semver 1.x,
// semverFilter ^1\.); "" (the latest stable version) prints nothing.
func (r Ref) String() string {
	s := r.URL
	if u, err := url.Parse(r.URL); err == nil && u.User != nil {
		s = u.Redacted()
	}
	if r.Kind == KindHTTP {
		s += " " + r.Chart
	}
	switch {
	case r.Digest != "":
		return s + "@" + r.Digest
	case r.Version != "" && r.SemverFilter != "":
		return s + " (semver " + r.Version + ", semverFilter " + r.SemverFilter + ")"
	case r.Version != "" && isRange(r.Version):
		return s + " (semver " + r.Version + ")"
	case r.Version != "":
		return s + ":" + r.Version
	case r.Tag != "":
		return s + ":" + r.Tag
	}
	return s
}

// isRange says whether v selects a version (a semver constraint) rather than naming one:
// source-controller takes a strict semver version (in tag form too, "_" for "+") as exact
// (fluxcd/pkg/version.ParseVersion), and a name that is no constraint ("latest") as a tag.
func isRange(v string) bool {
	if _, err := parseVersion(semverTag(v)); err == nil {
		return false
	}
	_, err := constraint(v)
	return err == nil
}

// Ref kinds.
const (
	KindOCI  = "oci"
	KindHTTP = "http"
)

// Chart is a pulled chart. Callers share it and must not change Archive.
type Chart struct {
	Archive []byte // the chart's .tgz
	Digest  string // "sha256:<hex>" of the OCI manifest, or of the .tgz for http
	Version string // the resolved version (an OCI tag in semver form, "_" read as "+")
	// Tag is the OCI tag pulled, as the registry spells it ("" for a digest or an http
	// chart): the "<tag>" of an OCIRepository's artifact revision "<tag>@<digest>"
	// (source-controller OCIRepositoryReconciler.getRevision).
	Tag string
}

// NotAllowedError says that a chart's host is not on the Policy's allow list. From is the
// allowed host that redirected the download there ("" when the chart's own host is refused).
type NotAllowedError struct{ Host, From string }

func (e *NotAllowedError) Error() string {
	return fmt.Sprintf("chart host %s is not allowed (allow %s to render it)", e.Host, e.Host)
}

// blobHosts are the hosts a registry redirects its blob downloads to, which an allow list
// must name as well: ghcr.io answers a blob GET with a 307 to
// pkg-containers.githubusercontent.com.
var blobHosts = map[string][]string{"ghcr.io": {"pkg-containers.githubusercontent.com"}}

// RedirectHosts lists, sorted, the hosts besides host that pulling a chart from host needs
// and allow does not admit (the blob hosts of its registry): the rest of the allow hint.
func RedirectHosts(host string, allow []string) []string {
	var out []string
	for _, h := range blobHosts[strings.ToLower(host)] {
		if !(&config.Remote{Allow: allow}).Allows(h) {
			out = append(out, h)
		}
	}
	return out
}

const defaultTimeout = 30 * time.Second

// Fetcher pulls charts under one Policy. It is safe for concurrent use; concurrent
// fetches of one reference share one pull.
type Fetcher struct {
	policy  Policy
	limits  limits
	http    *httpClient
	blobs   *store
	tokens  auth.Cache // anonymous registry tokens, shared by the charts of one registry
	charts  flights[*Chart]
	indexes flights[*index]
}

// New returns a Fetcher for one review.
func New(p Policy) *Fetcher {
	if p.Timeout <= 0 {
		p.Timeout = defaultTimeout
	}
	f := &Fetcher{policy: p, limits: defaultLimits, blobs: &store{dir: p.CacheDir}, tokens: auth.NewCache()}
	f.http = newHTTPClient(p, &f.limits)
	return f
}

// Fetch resolves ref and returns its chart. Errors name the reference and its host; a host
// that the Policy does not allow is a *NotAllowedError.
func (f *Fetcher) Fetch(ctx context.Context, ref Ref) (*Chart, error) {
	u, err := f.check(ref)
	if err != nil {
		return nil, fmt.Errorf("fetch chart %s: %w", ref, err)
	}
	c, err := f.charts.do(ctx, fmt.Sprintf("%q", []string{ref.Kind, ref.URL, ref.Chart, ref.Version, ref.Tag, ref.Digest, ref.SemverFilter,
		fmt.Sprint(ref.OCIRepository), ref.LayerMediaType}), f.policy.Timeout,
		func(ctx context.Context) (*Chart, error) {
			if ref.Kind == KindOCI {
				return f.fetchOCI(ctx, ref, u)
			}
			return f.fetchHTTP(ctx, ref)
		})
	if err != nil {
		return nil, fmt.Errorf("fetch chart %s from %s: %w", ref, u.Hostname(), err)
	}
	return c, nil
}

// check validates ref's shape and that the Policy lets its host be reached.
func (f *Fetcher) check(ref Ref) (*url.URL, error) {
	u, err := url.Parse(ref.URL)
	if err != nil {
		return nil, fmt.Errorf("chart URL: %w", err)
	}
	if u.User != nil {
		return nil, fmt.Errorf("a chart URL carries no credentials (%s)", u.Redacted())
	}
	switch ref.Kind {
	case KindOCI:
		if u.Scheme != "oci" || u.Host == "" || u.Path == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("an OCI chart URL is oci://host/path/chart, not %s", ref.URL)
		}
		if ref.Chart != "" {
			return nil, fmt.Errorf("an OCI chart is named by its URL; chart %q is not used", ref.Chart)
		}
	case KindHTTP:
		if ref.Chart == "" {
			return nil, fmt.Errorf("no chart name for Helm repository %s", ref.URL)
		}
		if ref.Digest != "" {
			return nil, fmt.Errorf("a Helm repository chart is not pinned by digest (%s)", ref.Digest)
		}
		if err := f.http.checkURL(u); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("chart source kind %q is neither %q nor %q", ref.Kind, KindOCI, KindHTTP)
	}
	return u, f.http.checkHost(u.Hostname())
}
