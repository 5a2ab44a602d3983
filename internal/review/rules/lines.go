package rules

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/tiergate/tiergate/internal/render"
)

// lineAfter returns the line, at or after from in file (relative to root), that holds the
// last of needles, each searched after the previous one; from when one is missing.
func lineAfter(root, file string, from int, needle ...string) int {
	if root == "" || file == "" {
		return from
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		return from
	}
	lines := strings.Split(string(data), "\n")
	i := from - 1
	for _, n := range needle {
		for ; i >= 0 && i < len(lines); i++ {
			if strings.Contains(lines[i], n) {
				break
			}
		}
		if i >= len(lines) {
			return from
		}
	}
	return i + 1
}

func dependsOnLine(c *render.Cluster, ks *render.Kustomization, name string) int {
	return lineAfter(c.Dir, ks.File, ks.Line, "dependsOn:", name)
}
