package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render"
)

// TestSecretDiffEveryCacheMode: a Secret (or any object) whose fields were substituted
// from a Secret shows as changed only when what it renders to changes, whether the head
// reuses the base's builds, both sides are built anew (--no-reuse), the builds come from
// a cache warmed by the reverse review, or whole graphs from a persistent cache folder
// (first and second process). secret-substituted-unchanged is a README-only PR (nothing
// changed); secret-substituted-rotation rotates one value (exactly the objects that take
// it are changed, db-url, which takes the others, is not). Each report's changed list is
// the scenario's expect.json's.
func TestSecretDiffEveryCacheMode(t *testing.T) {
	for _, name := range []string{"secret-substituted-unchanged", "secret-substituted-rotation"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("../../testdata/scenarios", name)
			var exp struct {
				Changed []map[string]any `json:"changed"`
			}
			data, err := os.ReadFile(filepath.Join(dir, "expect.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &exp); err != nil || exp.Changed == nil {
				t.Fatalf("expect.json: no changed list (%v)", err)
			}
			base, head := filepath.Join(dir, "base"), filepath.Join(dir, "head")
			check := func(mode, report string) {
				t.Helper()
				var rep struct {
					Changed []map[string]any `json:"changed"`
				}
				if err := json.Unmarshal([]byte(report), &rep); err != nil {
					t.Fatal(err)
				}
				if rep.Changed == nil {
					rep.Changed = []map[string]any{}
				}
				if d := cmp.Diff(exp.Changed, rep.Changed); d != "" {
					t.Errorf("%s: changed (-want +got):\n%s", mode, d)
				}
			}
			check("--no-reuse", reviewJSON(t, base, head, Options{NoReuse: true}))
			check("reuse", reviewJSON(t, base, head, Options{}))
			warm := render.NewCache(0)
			reviewJSON(t, head, base, Options{Cache: warm})
			check("builds cached by the reverse review", reviewJSON(t, base, head, Options{Cache: warm}))
			folder := t.TempDir()
			same := func(s render.Store) render.Store { return s }
			cold, _ := graphReview(t, folder, base, head, same)
			check("persistent cache, first process", cold)
			warmed, _ := graphReview(t, folder, base, head, same)
			check("persistent cache, second process", warmed)
		})
	}
}
