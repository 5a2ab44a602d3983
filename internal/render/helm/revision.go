package helm

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// OCIChartVersion is the chart version helm-controller renders a chart from an
// OCIRepository (or a digest-revisioned ExternalArtifact) with: version with the first 12
// hex digits of the artifact digest as build metadata, "1.2.3" and
// "1.2.3@sha256:9933f58f8bf4..." giving "1.2.3+9933f58f8bf4"
// (internal/controller/helmrelease_controller.go mutateChartWithSourceRevision, unless the
// controller runs with DisableChartDigestTracking). revision is the artifact's,
// "<tag>@<algorithm>:<hex>" or "<algorithm>:<hex>"; a semver tag must equal version (OCI
// tags spell "+" as "_"). Templates see it: app-template's helm.sh/chart label is
// `.Chart.Version | replace "+" "_"`.
func OCIChartVersion(version, revision string) (string, error) {
	ver, err := semver.NewVersion(version)
	if err != nil {
		return "", fmt.Errorf("invalid chart version %s", version)
	}
	digest := revision
	if tag, d, ok := strings.Cut(revision, "@"); ok {
		if tagVer, err := semver.NewVersion(strings.ReplaceAll(tag, "_", "+")); err == nil {
			if strings.Count(revision, "@") != 1 || !tagVer.Equal(ver) {
				return "", fmt.Errorf("artifact revision %s does not match chart version %s", tag, version)
			}
			digest = d
		}
	}
	// extractDigestSubString: "<algorithm>:<hex>", at least 12 digits.
	parts := strings.Split(digest, ":")
	if len(parts) != 2 || len(parts[1]) < 12 {
		return "", fmt.Errorf("invalid artifact revision %s", digest)
	}
	withMeta, err := ver.SetMetadata(parts[1][:12])
	if err != nil {
		return "", err
	}
	return withMeta.String(), nil
}
