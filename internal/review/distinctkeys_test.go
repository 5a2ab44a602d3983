package review

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tiergate/tiergate/internal/render/graph"
)

// Keys that read alike after redaction stay separate entries (hostile6 r13): a literal
// "<redacted>" and "<redacted> (2)" beside keys written from a Secret keep their text, the
// Secret's keys take the next free "(n)", both in maskFields (the key's position, base and
// head markers) and in redactTree (redaction by value). Keys that do not collide keep
// their text (negatives: "SS", "k<redacted>").
func TestRedactedKeysStayDistinct(t *testing.T) {
	body := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"data": map[string]any{
			"<redacted>": "lit", "<redacted> (2)": "lit3", "<redacted, changed>": "lit2",
			"Tkhdlongv4l": "fromsecret", "SS": "a", "kTkhdlongv4l": "k",
		}}}
	}
	key := graph.SecretField{Path: []string{"data", "Tkhdlongv4l"}, Key: true, Parts: []graph.TextPart{{Text: "Tkhdlongv4l", Secret: true}}}
	for name, c := range map[string]struct {
		got  *unstructured.Unstructured
		want map[string]any
	}{
		"maskFields base": {maskFields(body(), nil, []graph.SecretField{key}, nil, false), map[string]any{
			"<redacted>": "lit", "<redacted> (2)": "lit3", "<redacted, changed>": "lit2", "<redacted> (3)": "fromsecret", "SS": "a", "kTkhdlongv4l": "k",
		}},
		"maskFields head": {maskFields(body(), nil, []graph.SecretField{key}, nil, true), map[string]any{
			"<redacted>": "lit", "<redacted> (2)": "lit3", "<redacted, changed>": "lit2", "<redacted, changed> (2)": "fromsecret", "SS": "a", "kTkhdlongv4l": "k",
		}},
		"redactTree": {redactTree(body(), func(s string) string { return strings.ReplaceAll(s, "Tkhdlongv4l", "<redacted>") }), map[string]any{
			"<redacted>": "lit", "<redacted> (2)": "lit3", "<redacted, changed>": "lit2", "<redacted> (3)": "fromsecret", "SS": "a", "k<redacted>": "k",
		}},
	} {
		if d := cmp.Diff(c.want, c.got.Object["data"]); d != "" {
			t.Errorf("%s (-want +got):\n%s", name, d)
		}
	}
	// Two Secret keys that redact alike: sorted order decides, every run.
	u := &unstructured.Unstructured{Object: map[string]any{"b-Tkhdlongv4l": 1, "a-Tkhdlongv4l": 2}}
	want := map[string]any{"x-<redacted>": 2, "x-<redacted> (2)": 1}
	got := redactTree(u, func(s string) string {
		return strings.NewReplacer("a-Tkhdlongv4l", "x-<redacted>", "b-Tkhdlongv4l", "x-<redacted>").Replace(s)
	})
	if d := cmp.Diff(want, got.Object); d != "" {
		t.Errorf("two colliding keys (-want +got):\n%s", d)
	}
}
