package render

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tiergate/tiergate/internal/config"
)

// SourceIgnore returns the spec.ignore patterns (one per line) of the GitRepositories that
// are cluster roots' sources in dir, as source-controller applies them when it packs the
// artifact. Callers apply them with ApplySourceIgnore before rendering.
func SourceIgnore(dir string, cfg *config.Config) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	ix := newIndex(abs)
	roots, err := discover(abs, ix, cfg)
	if err != nil {
		return "", fmt.Errorf("discover clusters in %s: %w", dir, err)
	}
	want := map[SourceRef]bool{}
	for _, r := range roots {
		if r.ks.Spec.SourceRef.Kind == "GitRepository" {
			want[r.ks.Spec.SourceRef] = true
		}
	}
	var out []string
	eachGitRepository(ix, ix.yamlFiles(), func(ref SourceRef, _ string, d doc) {
		if ig := scalar(value(d.Node, "spec"), "ignore"); want[ref] && ig != "" {
			out = append(out, ig)
		}
	})
	return strings.Join(out, "\n"), nil
}
