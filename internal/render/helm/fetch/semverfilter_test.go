package fetch

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
)

// TestFetchOCISemverFilter: an OCIRepository's ref.semverFilter keeps the tags it matches
// before ref.semver picks the highest (source-controller getTagBySemver, filterTags).
func TestFetchOCISemverFilter(t *testing.T) {
	host, _ := newRegistry(t)
	type pushed struct{ manifest, archive string }
	charts := map[string]pushed{}
	for _, p := range []struct{ tag, version string }{
		{"1.2.0", "1.2.0"}, {"1.3.0", "1.3.0"}, {"2.0.0", "2.0.0"},
		{"1.4.0-dev.1", "1.4.0-dev.1"}, {"1.4.0-rc.1", "1.4.0-rc.1"}, {"1.5.0-rc.2", "1.5.0-rc.2"},
	} {
		archive := buildChart(t, "app", p.version)
		charts[p.tag] = pushed{pushChart(t, host, "charts/app", p.tag, p.version, archive), digest.FromBytes(archive).String()}
	}
	want := func(tag string) got {
		return got{Version: tag, Digest: charts[tag].manifest, Archive: charts[tag].archive}
	}
	url := "oci://" + host + "/charts/app"
	cases := []struct {
		name, version, filter string
		want                  got
		err                   string
	}{
		{name: "filter keeps one major", version: "*", filter: `^1\.`, want: want("1.3.0")},
		{name: "prereleases of one kind", version: ">=1.0.0-0", filter: `-rc\.`, want: want("1.5.0-rc.2")},
		{name: "unanchored filter matches a substring", version: ">=1.0.0-0", filter: `dev`, want: want("1.4.0-dev.1")},
		{name: "without the filter the highest wins", version: ">=1.0.0-0", want: want("2.0.0")},
		{name: "exact version the filter keeps", version: "1.2.0", filter: `^1\.2`, want: want("1.2.0")},
		{name: "exact version the filter drops", version: "1.2.0", filter: `^2\.`,
			err: fmt.Sprintf("fetch chart %s (semver 1.2.0, semverFilter ^2\\.) from 127.0.0.1: no tag matches version \"1.2.0\" (1 tags)", url)},
		{name: "filter matches no tag", version: "*", filter: `^v`,
			err: fmt.Sprintf("fetch chart %s (semver *, semverFilter ^v) from 127.0.0.1: semverFilter \"^v\" matches none of 6 tags", url)},
		{name: "bad regular expression", version: "*", filter: `(`,
			err: fmt.Sprintf("fetch chart %s (semver *, semverFilter () from 127.0.0.1: semverFilter \"(\": error parsing regexp: missing closing ): `(`", url)},
	}
	f := New(Policy{Allow: []string{"127.0.0.1"}, Loopback: true})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := f.Fetch(context.Background(), Ref{Kind: KindOCI, URL: url, Version: tc.version, SemverFilter: tc.filter, OCIRepository: true})
			if diff := cmp.Diff(tc.err, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, summary(c)); diff != "" {
				t.Errorf("chart (-want +got):\n%s", diff)
			}
		})
	}
}
