package fetch

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
)

func TestFetchOCI(t *testing.T) {
	host, _ := newRegistry(t)
	type pushed struct{ manifest, archive string }
	charts := map[string]pushed{}
	for _, p := range []struct{ tag, version string }{
		{"1.2.0", "1.2.0"}, {"1.2.5", "1.2.5"}, {"1.3.0", "1.3.0"}, {"2.0.0", "2.0.0"},
		{"1.4.0-rc.1", "1.4.0-rc.1"}, {"1.0.0_build.1", "1.0.0+build.1"}, {"latest", "2.1.0"},
	} {
		archive := buildChart(t, "app", p.version)
		charts[p.tag] = pushed{pushChart(t, host, "charts/app", p.tag, p.version, archive), digest.FromBytes(archive).String()}
	}
	legacy := buildChart(t, "app", "0.9.0")
	charts["0.9.0"] = pushed{pushChartAs(t, host, "charts/app", "0.9.0", "0.9.0", legacyChartLayerMediaType, legacy), digest.FromBytes(legacy).String()}
	notChart := pushChartAs(t, host, "charts/app", "0.1.0", "0.1.0", "application/vnd.oci.image.layer.v1.tar+gzip", legacy)
	want := func(tag, version string) got {
		return got{Version: version, Digest: charts[tag].manifest, Archive: charts[tag].archive}
	}
	url := "oci://" + host + "/charts/app"
	cases := []struct {
		name, version, digest string
		tag                   string // an OCIRepository's ref.tag
		want                  got
		err                   string
	}{
		{name: "exact tag", version: "1.2.5", want: want("1.2.5", "1.2.5")},
		{name: "semver range", version: "~1.2 || ^1.3", want: want("1.3.0", "1.3.0")},
		{name: "latest stable", version: "", want: want("2.0.0", "2.0.0")},
		{name: "prerelease by exact version", version: "1.4.0-rc.1", want: want("1.4.0-rc.1", "1.4.0-rc.1")},
		{name: "build metadata is tagged with _", version: "1.0.0+build.1", want: want("1.0.0_build.1", "1.0.0+build.1")},
		{name: "plain tag, version from the manifest", version: "latest", want: want("latest", "2.1.0")},
		{name: "digest wins over version", version: "9.9.9", digest: charts["1.2.0"].manifest, want: want("1.2.0", "1.2.0")},
		{name: "legacy layer media type", version: "0.9.0", want: want("0.9.0", "0.9.0")},
		{name: "no chart layer", version: "0.1.0", err: fmt.Sprintf("fetch chart %s:0.1.0 from 127.0.0.1: manifest %s: has no layer of type %s (layers: application/vnd.oci.image.layer.v1.tar+gzip)", url, notChart, chartLayerMediaType)},
		{name: "no match", version: "~3", err: fmt.Sprintf("fetch chart %s (semver ~3) from 127.0.0.1: no tag matches version \"~3\" (9 tags)", url)},
		{name: "OCIRepository tag", tag: "1.2.5", want: want("1.2.5", "1.2.5")},
		{name: "OCIRepository tag is never a range", tag: "1", err: fmt.Sprintf("fetch chart %s:1 from 127.0.0.1: %s:1: not found", url, url[len("oci://"):])},
		{name: "bad digest", digest: "sha256:abc", err: fmt.Sprintf("fetch chart %s@sha256:abc from 127.0.0.1: digest \"sha256:abc\" is not sha256:<64 hex digits>", url)},
	}
	f := New(Policy{Allow: []string{"127.0.0.1"}, Loopback: true})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := f.Fetch(context.Background(), Ref{Kind: KindOCI, URL: url, Version: tc.version, Tag: tc.tag, Digest: tc.digest})
			if diff := cmp.Diff(tc.err, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, summary(c)); diff != "" {
				t.Errorf("chart (-want +got):\n%s", diff)
			}
		})
	}
}
