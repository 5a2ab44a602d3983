package fetch

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
)

// TestFetchOCIRepositoryTags: an OCIRepository reads its tags as the registry spells
// them, "_" as "+" only under a layerSelector of Helm's chart media type
// (source-controller getTagBySemver, convertOCIToSemVerTag), and resolves an exact
// ref.semver from the tag list; a HelmRepository of type oci always reads "_" as "+" and
// takes an exact version as its tag (OCIChartRepository.getChartVersion).
func TestFetchOCIRepositoryTags(t *testing.T) {
	host, _ := newRegistry(t)
	type pushed struct{ manifest, archive string }
	charts := map[string]pushed{}
	for _, p := range []struct{ tag, version string }{
		{"1.2.0", "1.2.0"}, {"v1.2.5", "1.2.5"}, {"1.3.0_build.1", "1.3.0+build.1"},
	} {
		archive := buildChart(t, "app", p.version)
		charts[p.tag] = pushed{pushChart(t, host, "charts/app", p.tag, p.version, archive), digest.FromBytes(archive).String()}
	}
	type pull struct{ Tag, Version, Digest, Archive string }
	want := func(tag, version string) pull {
		return pull{tag, version, charts[tag].manifest, charts[tag].archive}
	}
	url := "oci://" + host + "/charts/app"
	cases := []struct {
		name string
		ref  Ref
		want pull
		err  string
	}{
		{name: "OCIRepository semver skips a tag with _", ref: Ref{Version: "~1", OCIRepository: true},
			want: want("v1.2.5", "v1.2.5")},
		{name: "OCIRepository semver under Helm's layer media type reads _ as +",
			ref:  Ref{Version: "~1", OCIRepository: true, LayerMediaType: chartLayerMediaType},
			want: want("1.3.0_build.1", "1.3.0+build.1")},
		{name: "OCIRepository semver with build metadata, no Helm media type", ref: Ref{Version: "1.3.0+build.1", OCIRepository: true},
			err: fmt.Sprintf("fetch chart %s:1.3.0+build.1 from 127.0.0.1: no tag matches version \"1.3.0+build.1\" (3 tags)", url)},
		{name: "OCIRepository exact semver is looked up in the tag list", ref: Ref{Version: "1.2.5", OCIRepository: true},
			want: want("v1.2.5", "v1.2.5")},
		{name: "OCIRepository tag with _ is pulled as written", ref: Ref{Tag: "1.3.0_build.1", OCIRepository: true},
			want: want("1.3.0_build.1", "1.3.0+build.1")},
		{name: "OCIRepository bad constraint", ref: Ref{Version: "stable", OCIRepository: true},
			err: fmt.Sprintf("fetch chart %s:stable from 127.0.0.1: ref.semver \"stable\" is not a semver constraint: improper constraint: \"stable\"", url)},
		{name: "HelmRepository oci range reads _ as +", ref: Ref{Version: "~1"},
			want: want("1.3.0_build.1", "1.3.0+build.1")},
		{name: "HelmRepository oci exact version is its tag", ref: Ref{Version: "1.2.5"},
			err: fmt.Sprintf("fetch chart %s:1.2.5 from 127.0.0.1: %s:1.2.5: not found", url, url[len("oci://"):])},
	}
	f := New(Policy{Allow: []string{"127.0.0.1"}, Loopback: true})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ref := tc.ref
			ref.Kind, ref.URL = KindOCI, url
			c, err := f.Fetch(context.Background(), ref)
			if diff := cmp.Diff(tc.err, errText(err)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			var p pull
			if c != nil {
				s := summary(c)
				p = pull{c.Tag, s.Version, s.Digest, s.Archive}
			}
			if diff := cmp.Diff(tc.want, p); diff != "" {
				t.Errorf("chart (-want +got):\n%s", diff)
			}
		})
	}
}
