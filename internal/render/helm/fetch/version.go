package fetch

import (
	"fmt"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// parseVersion is fluxcd/pkg/version.ParseVersion, which source-controller parses chart
// versions and tags with: strict semver, with an optional leading "v".
func parseVersion(v string) (*semver.Version, error) {
	if _, err := semver.StrictNewVersion(strings.TrimPrefix(v, "v")); err != nil {
		return nil, err
	}
	return semver.NewVersion(v)
}

// constraint parses ver as source-controller does: "" and "*" mean the latest stable
// version (a prerelease never matches "*").
func constraint(ver string) (*semver.Constraints, error) {
	if ver == "" {
		ver = "*"
	}
	return semver.NewConstraint(ver)
}

// ociTag and semverTag map between a chart version and its OCI tag: Helm tags "+" as "_",
// which OCI tags cannot hold (Helm pkg/registry Client.Push and Client.Tags;
// source-controller convertSemVerToOCITag, ocirepository_controller.go).
func ociTag(version string) string { return strings.ReplaceAll(version, "+", "_") }
func semverTag(tag string) string  { return strings.ReplaceAll(tag, "_", "+") }

// pickTag chooses from a registry's tags the one ver names, as source-controller's
// getLastMatchingVersionOrConstraint (internal/helm/repository/oci_chart_repository.go)
// does: an exact match first, else the highest tag satisfying the constraint ver. Tags
// are compared in semver form; tags that are not semver versions are skipped.
func pickTag(tags []string, ver string) (string, error) {
	if ver != "" {
		for _, t := range tags {
			if t == ver || semverTag(t) == ver {
				return t, nil
			}
		}
	}
	c, err := constraint(ver)
	if err != nil {
		return "", fmt.Errorf("version %q is neither a tag nor a semver constraint: %w", ver, err)
	}
	return highestTag(tags, ver, c, semverTag)
}

// pickSemverTag chooses from an OCIRepository's tags the highest that satisfies the
// constraint ver, as source-controller's getTagBySemver does: there is no exact match
// first, and a tag reads "_" as "+" only when helmTags (the layerSelector's media type is
// Helm's chart layer type: convertOCIToSemVerTag); otherwise "1.2.3_4" is no version and
// is skipped. Versions equal but for build metadata keep the first one listed (the
// controller's sort leaves their order unspecified).
func pickSemverTag(tags []string, ver string, helmTags bool) (string, error) {
	c, err := semver.NewConstraint(ver)
	if err != nil {
		return "", fmt.Errorf("ref.semver %q is not a semver constraint: %w", ver, err)
	}
	asVersion := func(t string) string { return t }
	if helmTags {
		asVersion = semverTag
	}
	return highestTag(tags, ver, c, asVersion)
}

// highestTag is the tag whose version (asVersion of the tag, parsed by parseVersion) is the
// highest that satisfies c; tags that are no version are skipped, and of equal versions the
// first listed wins. ver is the constraint as written, for the error when none matches.
func highestTag(tags []string, ver string, c *semver.Constraints, asVersion func(string) string) (string, error) {
	var best *semver.Version
	var bestTag string
	for _, t := range tags {
		v, err := parseVersion(asVersion(t))
		if err != nil || !c.Check(v) {
			continue
		}
		if best == nil || v.GreaterThan(best) {
			best, bestTag = v, t
		}
	}
	if best == nil {
		return "", fmt.Errorf("no tag matches version %q (%d tags)", ver, len(tags))
	}
	return bestTag, nil
}

// pickVersion chooses chart name's entry in an index as source-controller's
// ChartRepository.getChartVersion (internal/helm/repository/chart_repository.go) does: an
// exact version first, else the highest version satisfying the constraint ver ("" = the
// latest stable), equal versions (build metadata aside) ordered by their created time.
func pickVersion(idx *index, name, ver string) (*chartVersion, error) {
	cvs := slices.DeleteFunc(slices.Clone(idx.Entries[name]), func(cv *chartVersion) bool { return cv == nil })
	if len(cvs) == 0 {
		return nil, fmt.Errorf("index.yaml has no chart %q", name)
	}
	if ver != "" {
		for _, cv := range cvs {
			if cv.Version == ver {
				return cv, nil
			}
		}
	}
	c, err := constraint(ver)
	if err != nil {
		return nil, fmt.Errorf("chart %q version %q: %w", name, ver, err)
	}
	type match struct {
		v  *semver.Version
		cv *chartVersion
	}
	var ms []match
	for _, cv := range cvs {
		if v, err := parseVersion(cv.Version); err == nil && c.Check(v) {
			ms = append(ms, match{v, cv})
		}
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("no %q chart with version matching %q found", name, ver)
	}
	best := slices.MaxFunc(ms, func(a, b match) int {
		if d := a.v.Compare(b.v); d != 0 {
			return d
		}
		return a.cv.Created.Compare(b.cv.Created)
	})
	return best.cv, nil
}
