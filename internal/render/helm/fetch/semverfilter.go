package fetch

import (
	"context"
	"fmt"
	"regexp"

	"oras.land/oras-go/v2/registry/remote"
)

// filteredTag resolves an OCIRepository's ref.semver ver under ref.semverFilter filter as
// source-controller's getArtifactRef does: getTagBySemver lists every tag, keeps those the
// regular expression matches anywhere (filterTags: regexp.MatchString, so an unanchored
// filter matches a substring), then picks the highest of them satisfying ver (pickTag).
// An exact ver is looked up among the kept tags too, so a filter excluding it fails.
func (f *Fetcher) filteredTag(ctx context.Context, repo *remote.Repository, ver, filter string) (string, error) {
	match, err := regexp.Compile(filter)
	if err != nil {
		return "", fmt.Errorf("semverFilter %q: %w", filter, err)
	}
	tags, err := listTags(ctx, repo)
	if err != nil {
		return "", err
	}
	kept := filterTags(tags, match)
	if len(kept) == 0 {
		return "", fmt.Errorf("semverFilter %q matches none of %d tags", filter, len(tags))
	}
	return pickTag(kept, ver)
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
