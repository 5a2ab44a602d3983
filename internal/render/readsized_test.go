package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiergate/tiergate/internal/render/fsys"
)

// ReadFileSized returns a file of the size its stat gave, and fails naming the file when
// it has grown since: the MaxFileBytes check it passed was for the smaller size.
func TestReadFileSized(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.yaml")
	if err := os.WriteFile(p, []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := fsys.ReadFileSized(p, 5); err != nil || string(data) != "a: 1\n" {
		t.Fatalf("ReadFileSized(5) = %q, %v; want the file", data, err)
	}
	_, err := fsys.ReadFileSized(p, 3)
	if err == nil || !strings.Contains(err.Error(), p+" changed while it was read: more than the 3 bytes it had") {
		t.Fatalf("ReadFileSized(3) of a 5-byte file: err %v, want it to name the file and the size", err)
	}
}
