package fsys

import (
	"strings"
	"testing"
)

// laughs is a billion-laughs document: nine levels of nine aliases each.
func laughs() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [lol]\n")
	for i := 1; i <= 9; i++ {
		prev := "*a" + string(rune('0'+i-1))
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [" + strings.Repeat(prev+",", 8) + prev + "]\n")
	}
	return b.String()
}

// TestAliasBomb: a document whose aliases expand past the bound is refused with the
// counts; text without an anchor (a "*" in a cron schedule or a glob), a small anchor
// and its alias, and text that does not parse are not.
func TestAliasBomb(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"billion laughs", laughs(), " has YAML aliases that expand to 926177117 nodes from 33, which kustomize would expand without bound (billion laughs)"},
		{"stars without an anchor", "schedule: '*/5 * * * *'\nhosts: ['*.example.com']\npaths: [\"**/*.yaml\"]\n", ""},
		{"an alias and its anchor", "app: &app web\nname: *app\nlabels: {app: *app}\n", ""},
		{"an ampersand without a star", "url: https://example.com/?a=1&b=2\n", ""},
		{"an alias of no anchor", "name: *app\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AliasBomb([]byte(tt.data)); got != tt.want {
				t.Errorf("AliasBomb = %q, want %q", got, tt.want)
			}
		})
	}
}

// BenchmarkAliasBombNoAnchor is the check on a manifest that has "*" but no anchor (a
// CronJob), which no longer parses it.
func BenchmarkAliasBombNoAnchor(b *testing.B) {
	data := []byte("apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: backup\nspec:\n  schedule: '*/5 * * * *'\n" +
		strings.Repeat("  # a comment line that takes the file to a usual size\n", 60) + "  jobTemplate: {spec: {template: {spec: {containers: [{name: c, image: busybox}]}}}}\n")
	for b.Loop() {
		AliasBomb(data)
	}
}
