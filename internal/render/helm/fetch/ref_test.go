package fetch

import "testing"

// TestRefString: a semver range prints as a range, an exact version or a tag after ":".
func TestRefString(t *testing.T) {
	const oci, repo = "oci://ghcr.io/org/charts/app", "https://charts.example.com"
	for _, tc := range []struct {
		ref  Ref
		want string
	}{
		{Ref{Kind: KindOCI, URL: oci, Version: "~1.2"}, oci + " (semver ~1.2)"},
		{Ref{Kind: KindOCI, URL: oci, Version: ">=1.0.0 <2.0.0"}, oci + " (semver >=1.0.0 <2.0.0)"},
		{Ref{Kind: KindOCI, URL: oci, Version: "1.2"}, oci + " (semver 1.2)"},
		{Ref{Kind: KindOCI, URL: oci, Version: "1.2.3"}, oci + ":1.2.3"},
		{Ref{Kind: KindOCI, URL: oci, Version: "v1.2.3"}, oci + ":v1.2.3"},
		{Ref{Kind: KindOCI, URL: oci, Version: "1.0.0_build.1"}, oci + ":1.0.0_build.1"},
		{Ref{Kind: KindOCI, URL: oci, Version: "latest"}, oci + ":latest"},
		{Ref{Kind: KindOCI, URL: oci, Tag: "latest"}, oci + ":latest"},
		{Ref{Kind: KindOCI, URL: oci, Tag: "1.x"}, oci + ":1.x"},
		{Ref{Kind: KindOCI, URL: oci, Tag: "1.0.0", Digest: "sha256:abc"}, oci + "@sha256:abc"},
		{Ref{Kind: KindOCI, URL: oci, Version: "1.x", SemverFilter: `-rc\.`}, oci + ` (semver 1.x, semverFilter -rc\.)`},
		{Ref{Kind: KindOCI, URL: oci, Version: "1.2.3", SemverFilter: "^1"}, oci + " (semver 1.2.3, semverFilter ^1)"},
		{Ref{Kind: KindOCI, URL: oci, SemverFilter: "^1", Digest: "sha256:abc"}, oci + "@sha256:abc"},
		{Ref{Kind: KindHTTP, URL: repo, Chart: "podinfo", Version: "6.x"}, repo + " podinfo (semver 6.x)"},
		{Ref{Kind: KindHTTP, URL: repo, Chart: "podinfo", Version: "6.5.0"}, repo + " podinfo:6.5.0"},
		{Ref{Kind: KindHTTP, URL: repo, Chart: "podinfo"}, repo + " podinfo"},
	} {
		if got := tc.ref.String(); got != tc.want {
			t.Errorf("%+v: String() = %q, want %q", tc.ref, got, tc.want)
		}
	}
}

// TestRedirectHosts: ghcr.io's blob host is named unless the allow list admits it.
func TestRedirectHosts(t *testing.T) {
	for _, tc := range []struct {
		host  string
		allow []string
		want  []string
	}{
		{"ghcr.io", nil, []string{"pkg-containers.githubusercontent.com"}},
		{"GHCR.io", []string{"ghcr.io"}, []string{"pkg-containers.githubusercontent.com"}},
		{"ghcr.io", []string{"*.githubusercontent.com"}, nil},
		{"ghcr.io", []string{"pkg-containers.githubusercontent.com"}, nil},
		{"quay.io", nil, nil},
	} {
		got := RedirectHosts(tc.host, tc.allow)
		if len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) {
			t.Errorf("RedirectHosts(%q, %q) = %q, want %q", tc.host, tc.allow, got, tc.want)
		}
	}
}
