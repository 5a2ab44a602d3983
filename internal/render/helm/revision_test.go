package helm

import "testing"

// TestOCIChartVersion: helm-controller's Test_TryMutateChartWithSourceRevision vectors,
// then tags it does not test.
func TestOCIChartVersion(t *testing.T) {
	const sha = "sha256:9933f58f8bf459eb199d59ebc8a05683f3944e1242d9f5467d99aa2cf08a5370"
	for _, tc := range []struct{ version, revision, want, err string }{
		{"1.2.3", "1.2.3@" + sha, "1.2.3+9933f58f8bf4", ""},
		{"1.2.3", "1.2.4@" + sha, "", "artifact revision 1.2.4 does not match chart version 1.2.3"},
		{"1.2.3", sha, "1.2.3+9933f58f8bf4", ""},
		{"sha:123456", "1.2.3@sha:123456", "", "invalid chart version sha:123456"},
		// A non-semver tag is not compared; an OCI tag's "_" is the version's "+".
		{"5.1.0", "latest@" + sha, "5.1.0+9933f58f8bf4", ""},
		{"1.2.3+build", "1.2.3_build@" + sha, "1.2.3+9933f58f8bf4", ""},
		{"1.2.3", "1.2.3@sha256:abc", "", "invalid artifact revision sha256:abc"},
	} {
		got, err := OCIChartVersion(tc.version, tc.revision)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && err.Error() != tc.err) {
			t.Errorf("OCIChartVersion(%q, %q) = %q, %v; want %q, %q", tc.version, tc.revision, got, err, tc.want, tc.err)
		}
	}
}
