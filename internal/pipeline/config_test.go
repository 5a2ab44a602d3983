package pipeline

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/render/fsys"
	"github.com/tiergate/tiergate/internal/render/graph"
	"github.com/tiergate/tiergate/internal/review/rules"
)

// memTree is a folder of the demo scenario (base or head) in memory, with extra files (path → content)
// added or, with a nil content, left out.
func memTree(t *testing.T, rev string, extra map[string][]byte) *Tree {
	t.Helper()
	dir := "../../testdata/scenarios/demo/" + rev
	b := fsys.NewSourceBuilder(graph.Limits{})
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if _, ok := extra[rel]; ok {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return b.AddFile(rel, int64(len(data)), "", func() ([]byte, error) { return data, nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel, data := range extra {
		if data == nil {
			continue
		}
		if err := b.AddFile(rel, int64(len(data)), "", func() ([]byte, error) { return data, nil }); err != nil {
			t.Fatal(err)
		}
	}
	return &Tree{Source: b.Source(""), Rev: rev}
}

// aliasBombYAML is a billion-laughs document of a few hundred bytes.
func aliasBombYAML() []byte {
	var sb strings.Builder
	sb.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		sb.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := range 10 {
			if j > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString("*a" + string(rune('0'+i-1)))
		}
		sb.WriteString("]\n")
	}
	return []byte(sb.String())
}

// A head .tiergate.yaml that cannot be used is one config-error finding at its file and
// line, new, failing the review; the rest runs with the base's configuration (here its
// rules.tier-move: off) or the defaults (which report the demo's tier-move).
func TestHeadConfigError(t *testing.T) {
	const prefix = ".tiergate.yaml cannot be used, so this review ran with the base's .tiergate.yaml (or the defaults when that cannot be used either): "
	baseOff := []byte("rules:\n  tier-move: {severity: off}\n")
	big := make([]byte, 9<<20) // over MaxFileBytes (8 MiB)
	for i := range big {
		big[i] = '#'
	}
	twoMiB := append([]byte("failOn: error\n"), make([]byte, 2<<20)...) // under MaxFileBytes, over config.MaxBytes
	for i := 14; i < len(twoMiB); i++ {
		twoMiB[i] = '\n'
	}
	for _, tc := range []struct {
		name       string
		base, head []byte
		line       int
		message    string
		status     rules.Status
		// tierMove: the demo's tier-move finding is reported (the base's configuration
		// does not turn it off).
		tierMove bool
	}{
		{name: "yaml-error", head: []byte("failOn: error\nrules: [\n"), line: 2,
			message: ".tiergate.yaml:2: did not find expected node content", status: rules.StatusNew, tierMove: true},
		{name: "unknown-key", head: []byte("failOn: error\nrulez: {}\n"), line: 2,
			message: ".tiergate.yaml:2: rulez: unknown key", status: rules.StatusNew, tierMove: true},
		{name: "unknown-rule", base: baseOff, head: []byte("rules:\n  missing-wai: {severity: off}\n"), line: 2,
			message: `.tiergate.yaml:2: rules.missing-wai: unknown rule "missing-wai" (rules: ` + strings.Join(rules.IDs(), ", ") + ")", status: rules.StatusNew},
		{name: "alias-bomb", head: aliasBombYAML(), line: 1,
			message: ".tiergate.yaml: it has YAML aliases that expand to 1234567910 nodes from 48, which kustomize would expand without bound (billion laughs)", status: rules.StatusNew, tierMove: true},
		{name: "9MiB", head: big, line: 1,
			message: ".tiergate.yaml: it has 9437184 bytes, over tiergate's per-file limit of 8388608 (--max-file-bytes)", status: rules.StatusNew, tierMove: true},
		{name: "2MiB", head: twoMiB, line: 1,
			message: ".tiergate.yaml: more than 1048576 bytes, over tiergate's limit for a configuration file (config.MaxBytes)", status: rules.StatusNew, tierMove: true},
		{name: "base-config-used", base: baseOff, head: []byte("rules: [\n"), line: 1,
			message: ".tiergate.yaml:1: did not find expected node content", status: rules.StatusNew},
		{name: "same-error-at-base", base: []byte("rules: [\n"), head: []byte("rules: [\n"), line: 1,
			message: ".tiergate.yaml:1: did not find expected node content", status: rules.StatusExisting, tierMove: true},
		{name: "base-failOn-never", base: []byte("failOn: never\n"), head: []byte("rules: [\n"), line: 1,
			message: ".tiergate.yaml:1: did not find expected node content", status: rules.StatusNew, tierMove: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := memTree(t, "base", map[string][]byte{".tiergate.yaml": tc.base})
			head := memTree(t, "head", map[string][]byte{".tiergate.yaml": tc.head})
			res, err := Trees(context.Background(), base, head, Options{})
			if err != nil {
				t.Fatalf("Trees: %v (want a config-error finding, not an error)", err)
			}
			var got []rules.Finding
			var others []string
			for _, f := range res.Report.Findings {
				if f.Rule == "config-error" {
					got = append(got, f)
				} else {
					others = append(others, string(f.Status)+" "+f.Rule)
				}
			}
			want := []rules.Finding{{Rule: "config-error", Severity: rules.Error, Status: tc.status, File: ".tiergate.yaml", Line: tc.line,
				Message: prefix + tc.message, Suggestion: "Fix .tiergate.yaml at the line named; see docs/config.md for its keys."}}
			if d := cmp.Diff(want, got, cmp.AllowUnexported(rules.Finding{})); d != "" {
				t.Errorf("config-error findings (-want +got):\n%s", d)
			}
			wantOthers := []string{"new missing-depends-on", "new prune-transient"}
			if tc.tierMove {
				wantOthers = append(wantOthers, "new tier-move")
			}
			if d := cmp.Diff(wantOthers, others); d != "" {
				t.Errorf("the demo's findings (-want +got):\n%s", d)
			}
			// The demo's own errors fail it anyway; the threshold must stay at error even
			// when the base says failOn: never.
			if res.Threshold != rules.Error || !res.Failed() {
				t.Errorf("threshold %v, Failed() %t; want error, true", res.Threshold, res.Failed())
			}
		})
	}
}

// reviewedConfigErrors reviews base against head (Trees, default Options) and returns the
// report's config-error findings, in report order.
func reviewedConfigErrors(t *testing.T, base, head *Tree) []rules.Finding {
	t.Helper()
	res, err := Trees(context.Background(), base, head, Options{})
	if err != nil {
		t.Fatalf("Trees: %v", err)
	}
	var out []rules.Finding
	for _, f := range res.Report.Findings {
		if f.Rule == "config-error" {
			out = append(out, f)
		}
	}
	return out
}

// Every error of a head .tiergate.yaml is a config-error finding at its own line, in line
// order; one the base's file has as well is existing, the other new.
func TestHeadConfigEveryError(t *testing.T) {
	const prefix = ".tiergate.yaml cannot be used, so this review ran with the base's .tiergate.yaml (or the defaults when that cannot be used either): "
	const sugg = "Fix .tiergate.yaml at the line named; see docs/config.md for its keys."
	base := memTree(t, "base", map[string][]byte{".tiergate.yaml": []byte("failOn: sometimes\n")})
	head := memTree(t, "head", map[string][]byte{".tiergate.yaml": []byte("failOn: sometimes\nrulez: {}\nrules:\n  missing-wai: {severity: off}\n")})
	got := reviewedConfigErrors(t, base, head)
	one := func(status rules.Status, line int, msg string) rules.Finding {
		return rules.Finding{Rule: "config-error", Severity: rules.Error, Status: status, File: ".tiergate.yaml", Line: line,
			Message: prefix + msg, Suggestion: sugg}
	}
	want := []rules.Finding{
		one(rules.StatusNew, 2, ".tiergate.yaml:2: rulez: unknown key"),
		one(rules.StatusNew, 4, `.tiergate.yaml:4: rules.missing-wai: unknown rule "missing-wai" (rules: `+strings.Join(rules.IDs(), ", ")+")"),
		one(rules.StatusExisting, 1, `.tiergate.yaml:1: failOn: want error, warning, notice or never, got "sometimes"`),
	}
	if d := cmp.Diff(want, got, cmp.AllowUnexported(rules.Finding{})); d != "" {
		t.Errorf("config-error findings (-want +got):\n%s", d)
	}
}

// The operator's --config is not the pull request's: an error in it stops the review.
func TestConfigFlagErrorStops(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tiergate.yaml")
	if err := os.WriteFile(p, []byte("rules: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := memTree(t, "base", nil)
	_, err := Trees(context.Background(), tr, tr, Options{ConfigPath: p})
	if want := p + ":1: did not find expected node content"; err == nil || err.Error() != want {
		t.Fatalf("Trees with a broken --config: err %v, want %q", err, want)
	}
}
