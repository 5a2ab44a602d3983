package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tiergate/tiergate/internal/review/rules"
)

// TestReviewAppliesConfig runs the demo scenario with rule severities and ignores from a
// --config file: the JSON, the exit status and a bad rule id all follow the file.
func TestReviewAppliesConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	type summary struct {
		Code              int
		Findings, Ignored []string
	}
	review := func(config string, extra ...string) summary {
		out, code, err := run(t, append([]string{"review", "--base-dir", demo + "base", "--head-dir", demo + "head", "--format", "json", "--config", config}, extra...)...)
		if code == 2 {
			t.Fatalf("review: %v", err)
		}
		var rep struct {
			Findings []struct{ Rule, Severity, Status string }
			Ignored  []struct{ Rule, Severity, Status, IgnoredBy, Reason string }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		s := summary{Code: code}
		for _, f := range rep.Findings {
			s.Findings = append(s.Findings, fmt.Sprintf("%s %s %s", f.Status, f.Severity, f.Rule))
		}
		for _, f := range rep.Ignored {
			s.Ignored = append(s.Ignored, fmt.Sprintf("%s %s %s by %s: %s", f.Status, f.Severity, f.Rule, strings.TrimPrefix(f.IgnoredBy, dir+"/"), f.Reason))
		}
		return s
	}

	got := review(write("override.yaml", "rules:\n  missing-depends-on: {severity: warning}\n  tier-move: {severity: off}\n"))
	want := summary{Code: 1, Findings: []string{"new error prune-transient", "new warning missing-depends-on"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("severities (-want +got):\n%s", d)
	}

	got = review(write("ignore.yaml", "failOn: warning\nignore:\n  - object: {kind: PersistentVolumeClaim, name: web-*}\n    reason: data restored from backup\n"))
	want = summary{Code: 0, Ignored: []string{
		"new error missing-depends-on by ignore.yaml:3: data restored from backup",
		"new error prune-transient by ignore.yaml:3: data restored from backup",
		"new notice tier-move by ignore.yaml:3: data restored from backup",
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ignore (-want +got):\n%s", d)
	}

	bad := write("bad.yaml", "failOn: error\nrules:\n  missing-wai: {severity: notice}\n")
	_, code, err := run(t, "review", "--base-dir", demo+"base", "--head-dir", demo+"head", "--config", bad)
	wantErr := bad + `:3: rules.missing-wai: unknown rule "missing-wai" (rules: ` + strings.Join(rules.IDs(), ", ") + ")"
	if code != 2 || err == nil || err.Error() != wantErr {
		t.Errorf("exit %d, error %v; want 2, %s", code, err, wantErr)
	}
}
