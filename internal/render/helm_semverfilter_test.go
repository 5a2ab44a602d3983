package render

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/helm/fetch"
)

// recordingFetcher keeps the references it is asked for and fetches none.
type recordingFetcher struct {
	mu   sync.Mutex
	refs []fetch.Ref
}

func (f *recordingFetcher) Fetch(_ context.Context, ref fetch.Ref) (*fetch.Chart, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refs = append(f.refs, ref)
	return nil, errors.New("not fetched")
}

// TestOCIRepositorySemverFilter: ref.semverFilter goes with ref.semver to the fetch, and
// only with it: a digest wins over both (getArtifactRef).
func TestOCIRepositorySemverFilter(t *testing.T) {
	const url = "oci://ghcr.io/org/charts/app"
	oci := func(ref string) string {
		return "apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata:\n  name: app\n  namespace: apps\nspec:\n  url: " + url + "\n  ref: " + ref + "\n"
	}
	for _, tc := range []struct {
		name, ref string
		want      fetch.Ref
	}{
		{"semver with filter", `{semver: '>=1.0.0-0', semverFilter: '-rc\.'}`, fetch.Ref{Kind: "oci", URL: url, OCIRepository: true, Version: ">=1.0.0-0", SemverFilter: `-rc\.`}},
		{"semver without filter", `{semver: '1.x'}`, fetch.Ref{Kind: "oci", URL: url, OCIRepository: true, Version: "1.x"}},
		{"digest wins", `{digest: 'sha256:abc', semver: '1.x', semverFilter: '^1'}`, fetch.Ref{Kind: "oci", URL: url, OCIRepository: true, Digest: "sha256:abc"}},
		{"layerSelector media type goes with the ref", `{semver: '1.x'}` + "\n  layerSelector: {mediaType: application/vnd.cncf.helm.chart.content.v1.tar+gzip, operation: copy}",
			fetch.Ref{Kind: "oci", URL: url, OCIRepository: true, Version: "1.x", LayerMediaType: "application/vnd.cncf.helm.chart.content.v1.tar+gzip"}},
		{"tag ignores the filter", `{tag: '1.2.3', semverFilter: '^1'}`, fetch.Ref{Kind: "oci", URL: url, OCIRepository: true, Tag: "1.2.3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := merge(bootstrap("dev"), map[string]string{"clusters/dev/apps.yaml": ks("apps", "./apps"),
				"apps/oci.yaml": oci(tc.ref) + "---\n" + hr("echo", "chartRef: {kind: OCIRepository, name: app}")})
			f := &recordingFetcher{}
			if _, err := Render(context.Background(), tree(t, files), Options{Remote: RemotePolicy{Allow: []string{"ghcr.io"}}, Charts: f}); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]fetch.Ref{tc.want}, f.refs); d != "" {
				t.Errorf("fetched (-want +got):\n%s", d)
			}
		})
	}
}
