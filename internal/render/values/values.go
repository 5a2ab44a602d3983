// Package values holds the operations on Helm-style values maps (map[string]any, as
// sigs.k8s.io/yaml decodes them) that the render packages share.
package values

import "github.com/fluxcd/pkg/chartutil"

// Merge returns b merged over a as fluxcd/pkg/chartutil MergeMaps (Helm's
// chart/v2/loader.MergeMaps) and source-watcher's Merge copy strategy do: maps merge key
// by key, any other value of b replaces a's. Neither a nor b is modified.
func Merge(a, b map[string]any) map[string]any { return chartutil.MergeMaps(a, b) }

// String returns m[k] when it is a string, else "" (also for a nil m).
func String(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}
