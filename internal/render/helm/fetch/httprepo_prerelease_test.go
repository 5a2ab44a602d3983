package fetch

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFetchHTTPPrereleases: a HelmChart's spec.version against an index.yaml with
// prereleases, as source-controller's ChartRepository.getChartVersion reads it with
// Masterminds semver: "*" and "" are the latest stable version, a range admits a
// prerelease only when it names one ("-0"), an exact prerelease is taken as it is.
func TestFetchHTTPPrereleases(t *testing.T) {
	repo := newHelmRepo(t, "1.0.0", "1.1.0-rc.1", "1.1.0", "1.2.0-beta.1", "1.2.0-rc.2")
	repoURL := repo.srv.URL + "/repo"
	cases := []struct {
		name, version string
		want          got
		err           string
	}{
		{name: "star skips prereleases", version: "*", want: repo.want("1.1.0")},
		{name: "empty skips prereleases", version: "", want: repo.want("1.1.0")},
		{name: "range skips prereleases", version: "1.x", want: repo.want("1.1.0")},
		{name: "range naming a prerelease admits them", version: ">=1.0.0-0", want: repo.want("1.2.0-rc.2")},
		{name: "prerelease bound of one minor", version: "~1.2.0-0", want: repo.want("1.2.0-rc.2")},
		{name: "exact prerelease", version: "1.2.0-beta.1", want: repo.want("1.2.0-beta.1")},
		{name: "only prereleases match a stable range", version: ">1.1.0",
			err: fmt.Sprintf("fetch chart %s app (semver >1.1.0) from 127.0.0.1: no \"app\" chart with version matching \">1.1.0\" found", repoURL)},
	}
	f := New(Policy{Allow: []string{"127.0.0.1"}, Loopback: true})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := f.Fetch(context.Background(), Ref{Kind: KindHTTP, URL: repoURL, Chart: "app", Version: tc.version})
			if diff := cmp.Diff(tc.err, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, summary(c)); diff != "" {
				t.Errorf("chart (-want +got):\n%s", diff)
			}
		})
	}
}
