package fetch

import (
	"context"
	"fmt"
	"regexp"

	"oras.land/oras-go/v2/registry/remote"
)

// semverTag resolves an OCIRepository's ref.semver (ref.Version) as source-controller's
// getArtifactRef does: getTagBySemver lists every tag, keeps those ref.semverFilter
// matches anywhere (filterTags: regexp.MatchString, so an unanchored filter matches a
// substring), then picks the highest of them satisfying the constraint (pickSemverTag).
// An exact version is looked up the same way, so a filter excluding it fails.
func (f *Fetcher) semverTag(ctx context.Context, repo *remote.Repository, ref Ref) (string, error) {
	var match *regexp.Regexp
	if ref.SemverFilter != "" {
		var err error
		if match, err = regexp.Compile(ref.SemverFilter); err != nil {
			return "", fmt.Errorf("semverFilter %q: %w", ref.SemverFilter, err)
		}
	}
	tags, err := listTags(ctx, repo)
	if err != nil {
		return "", err
	}
	kept := tags
	if match != nil {
		if kept = filterTags(tags, match); len(kept) == 0 {
			return "", fmt.Errorf("semverFilter %q matches none of %d tags", ref.SemverFilter, len(tags))
		}
	}
	return pickSemverTag(kept, ref.Version, ref.LayerMediaType == chartLayerMediaType)
}

// filterTags keeps, in order, the tags match matches (source-controller filterTags).
func filterTags(tags []string, match *regexp.Regexp) []string {
	var kept []string
	for _, t := range tags {
		if match.MatchString(t) {
			kept = append(kept, t)
		}
	}
	return kept
}
