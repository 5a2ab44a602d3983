package fsys

import (
	"bytes"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
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
		{"an alias inside its anchor", "a: &a [*a]\n", " has a YAML alias inside the node its anchor names, which kustomize would expand without end"},
		{"a cycle through a second anchor", "a: &a {b: &b [x, *a]}\n", " has a YAML alias inside the node its anchor names, which kustomize would expand without end"},
		{"a cycle in a later document", "x: 1\n---\nm: &m {self: *m}\n", " has a YAML alias inside the node its anchor names, which kustomize would expand without end"},
		{"an alias beside its anchor", "a: &a [x]\nb: [*a, *a]\nc: &c {d: *a}\ne: *c\n", ""},
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

// TestMayHaveAlias: text yaml.v3 reads with an alias node passes, and the stars and
// ampersands of crons, globs and URLs that are no alias do not.
func TestMayHaveAlias(t *testing.T) {
	tests := []struct {
		data string
		want bool
	}{
		{"app: &app web\nname: *app\n", true},
		{"[&a-1 x, *a-1]\n", true},
		{"{&_ k: v, x: *_}\n", true},
		{"? &k key\n: *k\n", true},
		{"schedule: '*/5 * * * *'\nurl: https://example.com/?a=1&b=2\n", false},
		{"hosts: ['*.example.com', \"**/*.yaml\"]\nq: a&b\n", false},
		{"q: a & b\nr: * x\n", false},
		{"q: a=1&b=2\nr: x*y\n", true}, // a text test: "&b" and "*y" could be an anchor and an alias
		{"a: *app\n", false},
		{"a: &app x\n", false},
		{"\xff\xfe*\x00a\x00", true},
	}
	for _, tt := range tests {
		if got := MayHaveAlias([]byte(tt.data)); got != tt.want {
			t.Errorf("MayHaveAlias(%q) = %v, want %v", tt.data, got, tt.want)
		}
	}
}

// hasAlias reports whether yaml.v3 reads an alias node in any document of data.
func hasAlias(data []byte) bool {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if dec.Decode(&n) != nil {
			return false
		}
		seen := map[*yaml.Node]bool{}
		var walk func(*yaml.Node) bool
		walk = func(n *yaml.Node) bool {
			if n.Kind == yaml.AliasNode {
				return true
			}
			if seen[n] {
				return false
			}
			seen[n] = true
			for _, c := range n.Content {
				if walk(c) {
					return true
				}
			}
			return false
		}
		if walk(&n) {
			return true
		}
	}
}

// FuzzMayHaveAlias: every text in which yaml.v3 finds an alias node passes the pre-filter,
// so AliasBomb skipping the others never misses a bomb.
func FuzzMayHaveAlias(f *testing.F) {
	for _, s := range []string{laughs(), "a: &a [*a]\n", "app: &app web\nname: *app\n", "[&a x,*a]", "{? &a k: *a}",
		"- &x\n- *x\n", "a: !!str &a x\nb: *a\n", "--- &d\nk: v\n...\n--- *d\n", "a: \"&b\"\nc: '*d'\n", "\ufeffa: &a 1\nb: *a\n",
		"\xfe\xff\x00a\x00:\x00 \x00&\x00a\x00 \x001\x00\n\x00b\x00:\x00 \x00*\x00a\x00\n", "x: &a\ty\nz: [*a]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if hasAlias(data) && !MayHaveAlias(data) {
			t.Errorf("yaml.v3 reads an alias in %q, MayHaveAlias says none", data)
		}
	})
}

// realisticValues is a HelmRelease of the kind the corpus holds (an "&app" anchor and its
// aliases) and a large manifest without any (cilium's: globs, no anchor).
func realisticValues() (withAnchor, without []byte) {
	withAnchor = []byte("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: &app sonarr\nspec:\n  interval: 30m\n" +
		"  chart:\n    spec:\n      chart: app-template\n  values:\n    controllers:\n      *app :\n        containers:\n          app:\n" +
		"            image: {repository: ghcr.io/home-operations/sonarr, tag: 4.0.15}\n            env:\n              TZ: Australia/Melbourne\n" +
		strings.Repeat("              EXTRA_SETTING: \"value\"\n", 40) + "    service:\n      app:\n        controller: *app\n" +
		"    route:\n      app:\n        hostnames: [\"{{ .Release.Name }}.example.com\"]\n")
	var b strings.Builder
	for i := 0; i < 400; i++ {
		b.WriteString("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  glob: \"**/*.yaml\"\n  url: https://x.example.com/?a=1&b=2\n  cron: '*/5 * * * *'\n")
	}
	return withAnchor, []byte(b.String())
}

// BenchmarkAliasBomb is the check on a HelmRelease with an anchor (parsed) and on a large
// manifest whose stars and ampersands are no alias (not parsed).
func BenchmarkAliasBomb(b *testing.B) {
	withAnchor, without := realisticValues()
	b.Run("anchor", func(b *testing.B) {
		b.SetBytes(int64(len(withAnchor)))
		for b.Loop() {
			AliasBomb(withAnchor)
		}
	})
	b.Run("no-alias", func(b *testing.B) {
		b.SetBytes(int64(len(without)))
		for b.Loop() {
			AliasBomb(without)
		}
	})
}
